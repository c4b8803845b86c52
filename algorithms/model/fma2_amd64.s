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

// func scores2FMA(w, X *float64, rows *int, n, d int, bd float64, sc, wd *float64)
//
// First wd[j] = w[d+j] − w[j] for j < d (the weight difference, four
// columns at a time, the tail one by one). Then sc[i] = dot2(wd, row
// rows[i] of X) + bd for i < n: eight rows at a time (eight independent
// chains per load of wd), then four, then the rest one by one; each row
// with one YMM accumulator (lane l = columns j ≡ l mod 4) updated by
// VFMADD231PD in column order, folded as FOLD4, then the d mod 4 tail by
// scalar FMA and + bd.
TEXT ·scores2FMA(SB), NOSPLIT, $8-64
	MOVQ   w+0(FP), AX
	MOVQ   X+8(FP), DI
	MOVQ   rows+16(FP), R8
	MOVQ   n+24(FP), R9
	MOVQ   d+32(FP), R10
	VMOVSD bd+40(FP), X9
	MOVQ   sc+48(FP), R11
	MOVQ   wd+56(FP), SI
	SHLQ   $3, R10          // bytes per row
	MOVQ   R10, R12
	ANDQ   $-32, R12        // bytes of the first d4 columns
	LEAQ   (AX)(R10*1), CX  // w_1
	XORQ   R13, R13

wdvec:
	CMPQ    R13, R12
	JGE     wdtail
	VMOVUPD (CX)(R13*1), Y0
	VSUBPD  (AX)(R13*1), Y0, Y0
	VMOVUPD Y0, (SI)(R13*1)
	ADDQ    $32, R13
	JMP     wdvec

wdtail:
	CMPQ   R13, R10
	JGE    wddone
	VMOVSD (CX)(R13*1), X0
	VSUBSD (AX)(R13*1), X0, X0
	VMOVSD X0, (SI)(R13*1)
	ADDQ   $8, R13
	JMP    wdtail

wddone:
	MOVQ R12, d4b-8(SP)     // spilled: the eight-row loop needs R12
	XORQ BX, BX             // i

	// Eight rows at a time (more independent chains per wd load), with
	// X, n and sc read from the frame; then fours and ones below.
s8loop:
	LEAQ 8(BX), AX
	CMPQ AX, n+24(FP)
	JGT  s8done
	MOVQ  0(R8)(BX*8), AX
	IMULQ R10, AX
	ADDQ  X+8(FP), AX
	MOVQ  8(R8)(BX*8), CX
	IMULQ R10, CX
	ADDQ  X+8(FP), CX
	MOVQ  16(R8)(BX*8), DX
	IMULQ R10, DX
	ADDQ  X+8(FP), DX
	MOVQ  24(R8)(BX*8), DI
	IMULQ R10, DI
	ADDQ  X+8(FP), DI
	MOVQ  32(R8)(BX*8), R9
	IMULQ R10, R9
	ADDQ  X+8(FP), R9
	MOVQ  40(R8)(BX*8), R11
	IMULQ R10, R11
	ADDQ  X+8(FP), R11
	MOVQ  48(R8)(BX*8), R12
	IMULQ R10, R12
	ADDQ  X+8(FP), R12
	MOVQ  56(R8)(BX*8), R14
	IMULQ R10, R14
	ADDQ  X+8(FP), R14
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	XORQ   R13, R13

s8col:
	CMPQ        R13, d4b-8(SP)
	JGE         s8fold
	VMOVUPD     (SI)(R13*1), Y8
	VFMADD231PD (AX)(R13*1), Y8, Y0
	VFMADD231PD (CX)(R13*1), Y8, Y1
	VFMADD231PD (DX)(R13*1), Y8, Y2
	VFMADD231PD (DI)(R13*1), Y8, Y3
	VFMADD231PD (R9)(R13*1), Y8, Y4
	VFMADD231PD (R11)(R13*1), Y8, Y5
	VFMADD231PD (R12)(R13*1), Y8, Y6
	VFMADD231PD (R14)(R13*1), Y8, Y7
	ADDQ        $32, R13
	JMP         s8col

s8fold:
	VEXTRACTF128 $1, Y0, X8
	VADDPD       X8, X0, X0
	VPERMILPD    $1, X0, X8
	VADDSD       X8, X0, X0
	VEXTRACTF128 $1, Y1, X8
	VADDPD       X8, X1, X1
	VPERMILPD    $1, X1, X8
	VADDSD       X8, X1, X1
	VEXTRACTF128 $1, Y2, X8
	VADDPD       X8, X2, X2
	VPERMILPD    $1, X2, X8
	VADDSD       X8, X2, X2
	VEXTRACTF128 $1, Y3, X8
	VADDPD       X8, X3, X3
	VPERMILPD    $1, X3, X8
	VADDSD       X8, X3, X3
	VEXTRACTF128 $1, Y4, X8
	VADDPD       X8, X4, X4
	VPERMILPD    $1, X4, X8
	VADDSD       X8, X4, X4
	VEXTRACTF128 $1, Y5, X8
	VADDPD       X8, X5, X5
	VPERMILPD    $1, X5, X8
	VADDSD       X8, X5, X5
	VEXTRACTF128 $1, Y6, X8
	VADDPD       X8, X6, X6
	VPERMILPD    $1, X6, X8
	VADDSD       X8, X6, X6
	VEXTRACTF128 $1, Y7, X8
	VADDPD       X8, X7, X7
	VPERMILPD    $1, X7, X8
	VADDSD       X8, X7, X7

s8tail:
	CMPQ        R13, R10
	JGE         s8store
	VMOVSD      (SI)(R13*1), X8
	VFMADD231SD (AX)(R13*1), X8, X0
	VFMADD231SD (CX)(R13*1), X8, X1
	VFMADD231SD (DX)(R13*1), X8, X2
	VFMADD231SD (DI)(R13*1), X8, X3
	VFMADD231SD (R9)(R13*1), X8, X4
	VFMADD231SD (R11)(R13*1), X8, X5
	VFMADD231SD (R12)(R13*1), X8, X6
	VFMADD231SD (R14)(R13*1), X8, X7
	ADDQ        $8, R13
	JMP         s8tail

s8store:
	MOVQ sc+48(FP), AX
	VADDSD X9, X0, X0
	VADDSD X9, X1, X1
	VADDSD X9, X2, X2
	VADDSD X9, X3, X3
	VADDSD X9, X4, X4
	VADDSD X9, X5, X5
	VADDSD X9, X6, X6
	VADDSD X9, X7, X7
	VMOVSD X0, 0(AX)(BX*8)
	VMOVSD X1, 8(AX)(BX*8)
	VMOVSD X2, 16(AX)(BX*8)
	VMOVSD X3, 24(AX)(BX*8)
	VMOVSD X4, 32(AX)(BX*8)
	VMOVSD X5, 40(AX)(BX*8)
	VMOVSD X6, 48(AX)(BX*8)
	VMOVSD X7, 56(AX)(BX*8)
	ADDQ $8, BX
	JMP  s8loop

s8done:
	MOVQ X+8(FP), DI
	MOVQ n+24(FP), R9
	MOVQ sc+48(FP), R11
	MOVQ d4b-8(SP), R12

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
