//go:build amd64 && !purego

#include "textflag.h"

// Offsets in ds4Const (one [4]float64 row of 32 bytes each; see head4.go).
#define C_INVLN2N 0
#define C_SHIFT 32
#define C_LN2HI 64
#define C_LN2LO 96
#define C_P4 128
#define C_P3 160
#define C_P2 192
#define C_ONE 224
#define C_TWO 256
#define C_UNDER 288
#define C_SIGN 320
#define C_ABS 352
#define C_IDX 384

// EXPCORE(IN, OUT): OUT = expCore(IN) lane by lane, expCore's operations
// in its order (no FMA). R8 = &ds4Const, R9 = &expTable. Clobbers Y8–Y13.
#define EXPCORE(IN, OUT) \
	VMULPD     C_INVLN2N(R8), IN, Y8 \
	VADDPD     C_SHIFT(R8), Y8, Y8 \
	VSUBPD     C_SHIFT(R8), Y8, Y9 \
	VMULPD     C_LN2HI(R8), Y9, Y10 \
	VSUBPD     Y10, IN, Y10 \
	VMULPD     C_LN2LO(R8), Y9, Y11 \
	VSUBPD     Y11, Y10, Y10 \
	VPAND      C_IDX(R8), Y8, Y11 \
	VPCMPEQQ   Y12, Y12, Y12 \
	VGATHERQPD Y12, (R9)(Y11*8), Y13 \
	VPSRLQ     $8, Y8, Y8 \
	VPSLLQ     $52, Y8, Y8 \
	VPADDQ     Y8, Y13, Y13 \
	VMULPD     C_P4(R8), Y10, Y9 \
	VADDPD     C_P3(R8), Y9, Y9 \
	VMULPD     Y10, Y9, Y9 \
	VADDPD     C_P2(R8), Y9, Y9 \
	VMULPD     Y10, Y10, Y11 \
	VMULPD     Y9, Y11, Y9 \
	VADDPD     Y9, Y10, Y9 \
	VMULPD     Y9, Y13, Y9 \
	VADDPD     Y9, Y13, OUT

// func dsHeadsAVX2(sc, y *float64, n4 int) int
//
// sc[i] = dsGrads's gradient of score difference sc[i] with label y[i]
// (0 or 1 as a float64), four lanes at a time for i < n4 (a multiple of 4).
// It stops at the first group of four where some −|sc_i| lies outside
// expCore's fast range (or is NaN), leaving that group untouched, and
// returns how many entries it wrote; the caller finishes in Go (dsGrads,
// which uses math.Exp there). Iterations are independent, so the processor
// overlaps the long dependency chain (two exps, two divisions) of
// consecutive groups.
TEXT ·dsHeadsAVX2(SB), NOSPLIT, $0-32
	LEAQ ·ds4Const(SB), R8
	LEAQ ·expTable(SB), R9
	MOVQ sc+0(FP), AX
	MOVQ y+8(FP), BX
	MOVQ n4+16(FP), CX
	XORQ DX, DX

headloop:
	CMPQ DX, CX
	JGE  headdone
	VMOVUPD (AX)(DX*8), Y0             // d
	VORPD   C_SIGN(R8), Y0, Y1         // a = −|d|
	VCMPPD  $0x0d, C_UNDER(R8), Y1, Y2 // a ≥ expUnderBelow (false for NaN)
	VMOVMSKPD Y2, SI
	CMPQ    SI, $15
	JNE     headdone

	EXPCORE(Y1, Y2)                    // e = e^{−|d|}
	VADDPD  C_ONE(R8), Y2, Y3
	VMOVUPD C_ONE(R8), Y4
	VDIVPD  Y3, Y4, Y3                 // v = 1/(1+e) = σ(|d|)
	VMULPD  Y3, Y2, Y4                 // n = e·v = σ(−|d|)
	VSUBPD  Y4, Y3, Y5                 // v − n
	VANDPD  C_ABS(R8), Y5, Y5
	VANDPD  C_SIGN(R8), Y0, Y6
	VORPD   Y6, Y5, Y5                 // copysign(v − n, d)
	VXORPD  C_SIGN(R8), Y5, Y5         // negated: s_0 − s_1
	EXPCORE(Y5, Y6)                    // e^{s_0 − s_1}
	VADDPD  C_ONE(R8), Y6, Y6
	VMOVUPD C_ONE(R8), Y7
	VDIVPD  Y6, Y7, Y6                 // q_1 = 1/(1+e^{s_0 − s_1})
	VSUBPD  (BX)(DX*8), Y6, Y6         // q_1 − y
	VMULPD  C_TWO(R8), Y3, Y3          // 2·v
	VMULPD  Y4, Y3, Y3                 // ·n
	VMULPD  Y6, Y3, Y3                 // ·(q_1 − y)
	VMOVUPD Y3, (AX)(DX*8)
	ADDQ    $4, DX
	JMP     headloop

headdone:
	VZEROUPPER
	MOVQ DX, ret+24(FP)
	RET

// func ceHeadsAVX2(sc, y *float64, n4 int) int
//
// sc[i] = head2's CrossEntropy gradient g of score difference sc[i] with
// label y[i] (a float64), four lanes at a time for i < n4 (a multiple of 4):
// e = expCore(−|d|), v = 1/(1+e) = σ(|d|), n = e·v = σ(−|d|); s_1 = v and
// s_0 = n, swapped where d < 0; g = −s_0 where y = 1, else s_1 (selected by
// blends, so no branch on the random sign or label). Like dsHeadsAVX2 it
// stops at the first group of four with some −|d| outside expCore's fast
// range (or NaN), leaving that group untouched, and returns how many entries
// it wrote.
TEXT ·ceHeadsAVX2(SB), NOSPLIT, $0-32
	LEAQ ·ds4Const(SB), R8
	LEAQ ·expTable(SB), R9
	MOVQ sc+0(FP), AX
	MOVQ y+8(FP), BX
	MOVQ n4+16(FP), CX
	XORQ DX, DX
	VXORPD Y15, Y15, Y15               // 0

celoop:
	CMPQ DX, CX
	JGE  cedone
	VMOVUPD (AX)(DX*8), Y0             // d
	VORPD   C_SIGN(R8), Y0, Y1         // a = −|d|
	VCMPPD  $0x0d, C_UNDER(R8), Y1, Y2 // a ≥ expUnderBelow (false for NaN)
	VMOVMSKPD Y2, SI
	CMPQ    SI, $15
	JNE     cedone

	EXPCORE(Y1, Y2)                    // e = e^{−|d|}
	VADDPD  C_ONE(R8), Y2, Y3
	VMOVUPD C_ONE(R8), Y4
	VDIVPD  Y3, Y4, Y3                 // v = 1/(1+e)
	VMULPD  Y3, Y2, Y4                 // n = e·v
	VCMPPD  $0x01, Y15, Y0, Y5         // d < 0
	VBLENDVPD Y5, Y4, Y3, Y6           // s_1 = d < 0 ? n : v
	VBLENDVPD Y5, Y3, Y4, Y7           // s_0 = d < 0 ? v : n
	VXORPD  C_SIGN(R8), Y7, Y7         // −s_0
	VMOVUPD (BX)(DX*8), Y5
	VCMPPD  $0x00, C_ONE(R8), Y5, Y5   // y = 1
	VBLENDVPD Y5, Y7, Y6, Y6           // g = y = 1 ? −s_0 : s_1
	VMOVUPD Y6, (AX)(DX*8)
	ADDQ    $4, DX
	JMP     celoop

cedone:
	VZEROUPPER
	MOVQ DX, ret+24(FP)
	RET
