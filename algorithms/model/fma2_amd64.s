//go:build amd64 && !purego

#include "textflag.h"

// The fused two-class dot products (issue 24); fma2.go states the
// definitions and computes the same bits in Go. Go's operand order:
// VFMADD231PD m, a, acc is acc = a·m + acc with one rounding.

// FOLD4(Y, X): X's low lane = (a_0 + a_2) + (a_1 + a_3) of Y = (a_0, a_1,
// a_2, a_3). Clobbers X5.
#define FOLD4(Y, X) \
	VEXTRACTF128 $1, Y, X5 \
	VADDPD       X5, X, X \
	VPERMILPD    $1, X, X5 \
	VADDSD       X5, X, X

// ROWPTR(i, R): R = X + rows[i]·d·8 (DI = X, R8 = rows, R10 = d·8).
#define ROWPTR(off, R) \
	MOVQ  off(R8)(BX*8), R \
	IMULQ R10, R \
	ADDQ  DI, R

// func scores2FMA(wd, X *float64, rows *int, n, d int, bd float64, sc *float64)
//
// sc[i] = dot2(wd, row rows[i] of X) + bd for i < n: four rows at a time,
// each with one YMM accumulator (lane l = columns j ≡ l mod 4) updated by
// VFMADD231PD in column order, folded by FOLD4, then the d mod 4 tail by
// scalar FMA and + bd; then the n mod 4 rows one by one, the same way.
TEXT ·scores2FMA(SB), NOSPLIT, $0-56
	MOVQ   wd+0(FP), SI
	MOVQ   X+8(FP), DI
	MOVQ   rows+16(FP), R8
	MOVQ   n+24(FP), R9
	MOVQ   d+32(FP), R10
	VMOVSD bd+40(FP), X9
	MOVQ   sc+48(FP), R11
	SHLQ   $3, R10          // bytes per row
	MOVQ   R10, R12
	ANDQ   $-32, R12        // bytes of the first d4 columns
	XORQ   BX, BX           // i

s4loop:
	LEAQ 4(BX), AX
	CMPQ AX, R9
	JGT  s1loop
	ROWPTR(0, AX)
	ROWPTR(8, CX)
	ROWPTR(16, DX)
	ROWPTR(24, R14)
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	XORQ   R13, R13

s4col:
	CMPQ        R13, R12
	JGE         s4fold
	VMOVUPD     (SI)(R13*1), Y4
	VFMADD231PD (AX)(R13*1), Y4, Y0
	VFMADD231PD (CX)(R13*1), Y4, Y1
	VFMADD231PD (DX)(R13*1), Y4, Y2
	VFMADD231PD (R14)(R13*1), Y4, Y3
	ADDQ        $32, R13
	JMP         s4col

s4fold:
	FOLD4(Y0, X0)
	FOLD4(Y1, X1)
	FOLD4(Y2, X2)
	FOLD4(Y3, X3)

s4tail:
	CMPQ        R13, R10
	JGE         s4store
	VMOVSD      (SI)(R13*1), X4
	VFMADD231SD (AX)(R13*1), X4, X0
	VFMADD231SD (CX)(R13*1), X4, X1
	VFMADD231SD (DX)(R13*1), X4, X2
	VFMADD231SD (R14)(R13*1), X4, X3
	ADDQ        $8, R13
	JMP         s4tail

s4store:
	VADDSD X9, X0, X0
	VADDSD X9, X1, X1
	VADDSD X9, X2, X2
	VADDSD X9, X3, X3
	VMOVSD X0, 0(R11)(BX*8)
	VMOVSD X1, 8(R11)(BX*8)
	VMOVSD X2, 16(R11)(BX*8)
	VMOVSD X3, 24(R11)(BX*8)
	ADDQ   $4, BX
	JMP    s4loop

s1loop:
	CMPQ   BX, R9
	JGE    sdone
	ROWPTR(0, AX)
	VXORPD Y0, Y0, Y0
	XORQ   R13, R13

s1col:
	CMPQ        R13, R12
	JGE         s1fold
	VMOVUPD     (SI)(R13*1), Y4
	VFMADD231PD (AX)(R13*1), Y4, Y0
	ADDQ        $32, R13
	JMP         s1col

s1fold:
	FOLD4(Y0, X0)

s1tail:
	CMPQ        R13, R10
	JGE         s1store
	VMOVSD      (SI)(R13*1), X4
	VFMADD231SD (AX)(R13*1), X4, X0
	ADDQ        $8, R13
	JMP         s1tail

s1store:
	VADDSD X9, X0, X0
	VMOVSD X0, 0(R11)(BX*8)
	INCQ   BX
	JMP    s1loop

sdone:
	VZEROUPPER
	RET

// func accRowsFMA(c, X *float64, rows *int, n, d, d4 int, g1 *float64)
//
// g1[j] = fma(c[i], X[rows[i]·d + j], g1[j]) for i = 0…n−1 in order and
// j < d4 (n > 0, d4 a positive multiple of 4): the columns in blocks of
// 32 (as long as they fit), then at most one block each of 16, 8 and 4,
// each block's entries of g1 held in YMM registers across all the rows.
TEXT ·accRowsFMA(SB), NOSPLIT, $0-56
	MOVQ c+0(FP), SI
	MOVQ X+8(FP), DI
	MOVQ rows+16(FP), R8
	MOVQ n+24(FP), R9
	MOVQ d+32(FP), R10
	SHLQ $3, R10            // bytes per row
	MOVQ d4+40(FP), R12
	SHLQ $3, R12            // bytes of the d4 columns
	MOVQ g1+48(FP), R11
	XORQ R13, R13           // byte offset of the block's first column


b32:
	LEAQ 256(R13), AX
	CMPQ AX, R12
	JGT  b32done
	LEAQ (R11)(R13*1), DX   // &g1[j]
	LEAQ (DI)(R13*1), CX    // &X[j]
	VMOVUPD 0(DX), Y0
	VMOVUPD 32(DX), Y1
	VMOVUPD 64(DX), Y2
	VMOVUPD 96(DX), Y3
	VMOVUPD 128(DX), Y4
	VMOVUPD 160(DX), Y5
	VMOVUPD 192(DX), Y6
	VMOVUPD 224(DX), Y7
	XORQ BX, BX

b32row:
	MOVQ         (R8)(BX*8), AX
	IMULQ        R10, AX
	ADDQ         CX, AX
	VBROADCASTSD (SI)(BX*8), Y8
	VFMADD231PD 0(AX), Y8, Y0
	VFMADD231PD 32(AX), Y8, Y1
	VFMADD231PD 64(AX), Y8, Y2
	VFMADD231PD 96(AX), Y8, Y3
	VFMADD231PD 128(AX), Y8, Y4
	VFMADD231PD 160(AX), Y8, Y5
	VFMADD231PD 192(AX), Y8, Y6
	VFMADD231PD 224(AX), Y8, Y7
	INCQ BX
	CMPQ BX, R9
	JLT  b32row
	VMOVUPD Y0, 0(DX)
	VMOVUPD Y1, 32(DX)
	VMOVUPD Y2, 64(DX)
	VMOVUPD Y3, 96(DX)
	VMOVUPD Y4, 128(DX)
	VMOVUPD Y5, 160(DX)
	VMOVUPD Y6, 192(DX)
	VMOVUPD Y7, 224(DX)
	ADDQ $256, R13
	JMP  b32

b32done:

b16:
	LEAQ 128(R13), AX
	CMPQ AX, R12
	JGT  b16done
	LEAQ (R11)(R13*1), DX   // &g1[j]
	LEAQ (DI)(R13*1), CX    // &X[j]
	VMOVUPD 0(DX), Y0
	VMOVUPD 32(DX), Y1
	VMOVUPD 64(DX), Y2
	VMOVUPD 96(DX), Y3
	XORQ BX, BX

b16row:
	MOVQ         (R8)(BX*8), AX
	IMULQ        R10, AX
	ADDQ         CX, AX
	VBROADCASTSD (SI)(BX*8), Y8
	VFMADD231PD 0(AX), Y8, Y0
	VFMADD231PD 32(AX), Y8, Y1
	VFMADD231PD 64(AX), Y8, Y2
	VFMADD231PD 96(AX), Y8, Y3
	INCQ BX
	CMPQ BX, R9
	JLT  b16row
	VMOVUPD Y0, 0(DX)
	VMOVUPD Y1, 32(DX)
	VMOVUPD Y2, 64(DX)
	VMOVUPD Y3, 96(DX)
	ADDQ $128, R13

b16done:

b8:
	LEAQ 64(R13), AX
	CMPQ AX, R12
	JGT  b8done
	LEAQ (R11)(R13*1), DX   // &g1[j]
	LEAQ (DI)(R13*1), CX    // &X[j]
	VMOVUPD 0(DX), Y0
	VMOVUPD 32(DX), Y1
	XORQ BX, BX

b8row:
	MOVQ         (R8)(BX*8), AX
	IMULQ        R10, AX
	ADDQ         CX, AX
	VBROADCASTSD (SI)(BX*8), Y8
	VFMADD231PD 0(AX), Y8, Y0
	VFMADD231PD 32(AX), Y8, Y1
	INCQ BX
	CMPQ BX, R9
	JLT  b8row
	VMOVUPD Y0, 0(DX)
	VMOVUPD Y1, 32(DX)
	ADDQ $64, R13

b8done:

b4:
	LEAQ 32(R13), AX
	CMPQ AX, R12
	JGT  b4done
	LEAQ (R11)(R13*1), DX   // &g1[j]
	LEAQ (DI)(R13*1), CX    // &X[j]
	VMOVUPD 0(DX), Y0
	XORQ BX, BX

b4row:
	MOVQ         (R8)(BX*8), AX
	IMULQ        R10, AX
	ADDQ         CX, AX
	VBROADCASTSD (SI)(BX*8), Y8
	VFMADD231PD 0(AX), Y8, Y0
	INCQ BX
	CMPQ BX, R9
	JLT  b4row
	VMOVUPD Y0, 0(DX)
	ADDQ $32, R13

b4done:
	VZEROUPPER
	RET
