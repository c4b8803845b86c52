//go:build amd64 && !purego

#include "textflag.h"

// func momentumAVX2(p, buf, grad *float64, n4 int, rho, lr float64)
//
// For j < n4 (a multiple of 4), four elements per instruction: b = ρ·buf[j]
// + grad[j]; buf[j] = b; p[j] = p[j] − η·b — SGD.Step's plain-momentum loop,
// the same operations in the same order (no FMA), elementwise.
TEXT ·momentumAVX2(SB), NOSPLIT, $0-48
	MOVQ p+0(FP), AX
	MOVQ buf+8(FP), BX
	MOVQ grad+16(FP), SI
	MOVQ n4+24(FP), CX
	SHLQ $3, CX
	VBROADCASTSD rho+32(FP), Y0
	VBROADCASTSD lr+40(FP), Y1
	XORQ DX, DX

loop:
	CMPQ DX, CX
	JGE  done
	VMULPD  (BX)(DX*1), Y0, Y2 // ρ·buf
	VADDPD  (SI)(DX*1), Y2, Y2 // + g
	VMOVUPD Y2, (BX)(DX*1)
	VMULPD  Y2, Y1, Y3         // η·b
	VMOVUPD (AX)(DX*1), Y4
	VSUBPD  Y3, Y4, Y4         // p − η·b
	VMOVUPD Y4, (AX)(DX*1)
	ADDQ    $32, DX
	JMP     loop

done:
	VZEROUPPER
	RET
