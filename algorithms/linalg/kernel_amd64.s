//go:build amd64 && !purego

#include "textflag.h"

// func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL eaxArg+0(FP), AX
	MOVL ecxArg+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv() (eax, edx uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-8
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	MOVL DX, edx+4(FP)
	RET

// func dot4x2AVX2(a0, a1, a2, a3, b0, b1 *float64, k4 int, acc *[8][4]float64)
//
// acc[2r+s] = lane-wise Σ a_r[4t:4t+4]·b_s[4t:4t+4] over t < k4/4, each
// lane one of gonum's four DotUnitary partial sums. Products take the A
// element as first source and sums the accumulator, as gonum's MULPD and
// ADDPD do.
TEXT ·dot4x2AVX2(SB), NOSPLIT, $0-64
	MOVQ a0+0(FP), AX
	MOVQ a1+8(FP), BX
	MOVQ a2+16(FP), CX
	MOVQ a3+24(FP), DX
	MOVQ b0+32(FP), SI
	MOVQ b1+40(FP), DI
	MOVQ k4+48(FP), R8
	MOVQ acc+56(FP), R9
	SHLQ $3, R8 // end offset in bytes
	XORQ R10, R10
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7

dotloop:
	VMOVUPD (SI)(R10*1), Y8
	VMOVUPD (DI)(R10*1), Y9
	VMOVUPD (AX)(R10*1), Y10
	VMOVUPD (BX)(R10*1), Y13
	VMULPD  Y8, Y10, Y11
	VMULPD  Y9, Y10, Y12
	VADDPD  Y11, Y0, Y0
	VADDPD  Y12, Y1, Y1
	VMULPD  Y8, Y13, Y11
	VMULPD  Y9, Y13, Y12
	VADDPD  Y11, Y2, Y2
	VADDPD  Y12, Y3, Y3
	VMOVUPD (CX)(R10*1), Y14
	VMOVUPD (DX)(R10*1), Y15
	VMULPD  Y8, Y14, Y11
	VMULPD  Y9, Y14, Y12
	VADDPD  Y11, Y4, Y4
	VADDPD  Y12, Y5, Y5
	VMULPD  Y8, Y15, Y11
	VMULPD  Y9, Y15, Y12
	VADDPD  Y11, Y6, Y6
	VADDPD  Y12, Y7, Y7
	ADDQ    $32, R10
	CMPQ    R10, R8
	JLT     dotloop

	VMOVUPD Y0, 0(R9)
	VMOVUPD Y1, 32(R9)
	VMOVUPD Y2, 64(R9)
	VMOVUPD Y3, 96(R9)
	VMOVUPD Y4, 128(R9)
	VMOVUPD Y5, 160(R9)
	VMOVUPD Y6, 192(R9)
	VMOVUPD Y7, 224(R9)
	VZEROUPPER
	RET

// func axpyListAVX2(c *float64, n int, coef *float64, off *int, cnt int, b *float64)
//
// c[j] = (b[off[t]+j]·coef[t]) + c[j] for t = 0, 1, …, cnt−1 in order, for
// every j < n: gonum's AxpyUnitary roundings (product with the B element as
// first source, then the product plus c), with blocks of c in registers.
TEXT ·axpyListAVX2(SB), NOSPLIT, $0-48
	MOVQ c+0(FP), DI
	MOVQ n+8(FP), CX
	MOVQ coef+16(FP), SI
	MOVQ off+24(FP), R8
	MOVQ cnt+32(FP), R9
	MOVQ b+40(FP), R10
	XORQ R11, R11 // j

block16:
	MOVQ CX, AX
	SUBQ R11, AX // AX = n − j
	CMPQ AX, $16
	JLT  block4
	VMOVUPD (DI)(R11*8), Y0
	VMOVUPD 32(DI)(R11*8), Y1
	VMOVUPD 64(DI)(R11*8), Y2
	VMOVUPD 96(DI)(R11*8), Y3
	LEAQ    (R10)(R11*8), R12 // &b[j]
	XORQ    BX, BX            // t

loop16:
	VBROADCASTSD (SI)(BX*8), Y4
	MOVQ         (R8)(BX*8), DX
	LEAQ         (R12)(DX*8), R13 // &b[off[t]+j]
	VMOVUPD      (R13), Y5
	VMOVUPD      32(R13), Y6
	VMOVUPD      64(R13), Y7
	VMOVUPD      96(R13), Y8
	VMULPD       Y4, Y5, Y5
	VMULPD       Y4, Y6, Y6
	VMULPD       Y4, Y7, Y7
	VMULPD       Y4, Y8, Y8
	VADDPD       Y0, Y5, Y0
	VADDPD       Y1, Y6, Y1
	VADDPD       Y2, Y7, Y2
	VADDPD       Y3, Y8, Y3
	INCQ         BX
	CMPQ         BX, R9
	JLT          loop16

	VMOVUPD Y0, (DI)(R11*8)
	VMOVUPD Y1, 32(DI)(R11*8)
	VMOVUPD Y2, 64(DI)(R11*8)
	VMOVUPD Y3, 96(DI)(R11*8)
	ADDQ    $16, R11
	JMP     block16

block4:
	CMPQ    AX, $4
	JLT     block1
	VMOVUPD (DI)(R11*8), Y0
	LEAQ    (R10)(R11*8), R12
	XORQ    BX, BX

loop4:
	VBROADCASTSD (SI)(BX*8), Y4
	MOVQ         (R8)(BX*8), DX
	VMOVUPD      (R12)(DX*8), Y5
	VMULPD       Y4, Y5, Y5
	VADDPD       Y0, Y5, Y0
	INCQ         BX
	CMPQ         BX, R9
	JLT          loop4

	VMOVUPD Y0, (DI)(R11*8)
	ADDQ    $4, R11
	MOVQ    CX, AX
	SUBQ    R11, AX
	JMP     block4

block1:
	CMPQ   AX, $0
	JLE    done
	VMOVSD (DI)(R11*8), X0
	LEAQ   (R10)(R11*8), R12
	XORQ   BX, BX

loop1:
	VMOVSD (SI)(BX*8), X4
	MOVQ   (R8)(BX*8), DX
	VMOVSD (R12)(DX*8), X5
	VMULSD X4, X5, X5
	VADDSD X0, X5, X0
	INCQ   BX
	CMPQ   BX, R9
	JLT    loop1

	VMOVSD X0, (DI)(R11*8)
	INCQ   R11
	MOVQ   CX, AX
	SUBQ   R11, AX
	JMP    block1

done:
	VZEROUPPER
	RET
