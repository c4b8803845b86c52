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

// func axpy4AVX2(c *float64, ldc int, n int, coef *float64, off *int, cnt int, b *float64)
//
// axpyListAVX2 for the 4 rows c, c+ldc, c+2·ldc, c+3·ldc of C at once,
// with the coefficients of row r of list entry t at coef[4t+r] (all
// non-zero): each loaded vector of B serves four rows. Per entry of C the
// operations and their order are those of axpyListAVX2.
TEXT ·axpy4AVX2(SB), NOSPLIT, $0-56
	MOVQ c+0(FP), DI
	MOVQ ldc+8(FP), R10
	SHLQ $3, R10
	LEAQ (DI)(R10*1), R11  // row 1
	LEAQ (R11)(R10*1), R12 // row 2
	ADDQ R12, R10          // row 3
	MOVQ n+16(FP), AX      // columns left
	MOVQ coef+24(FP), CX
	MOVQ off+32(FP), R8
	MOVQ cnt+40(FP), R9
	MOVQ b+48(FP), SI      // &b[j]

a4block8:
	CMPQ    AX, $8
	JLT     a4block4
	VMOVUPD (DI), Y0
	VMOVUPD 32(DI), Y1
	VMOVUPD (R11), Y2
	VMOVUPD 32(R11), Y3
	VMOVUPD (R12), Y4
	VMOVUPD 32(R12), Y5
	VMOVUPD (R10), Y6
	VMOVUPD 32(R10), Y7
	XORQ    BX, BX
	MOVQ    CX, R14

a4loop8:
	MOVQ         (R8)(BX*8), DX
	LEAQ         (SI)(DX*8), R13
	VMOVUPD      (R13), Y8
	VMOVUPD      32(R13), Y9
	VBROADCASTSD (R14), Y10
	VMULPD       Y10, Y8, Y11
	VMULPD       Y10, Y9, Y12
	VADDPD       Y0, Y11, Y0
	VADDPD       Y1, Y12, Y1
	VBROADCASTSD 8(R14), Y10
	VMULPD       Y10, Y8, Y11
	VMULPD       Y10, Y9, Y12
	VADDPD       Y2, Y11, Y2
	VADDPD       Y3, Y12, Y3
	VBROADCASTSD 16(R14), Y10
	VMULPD       Y10, Y8, Y11
	VMULPD       Y10, Y9, Y12
	VADDPD       Y4, Y11, Y4
	VADDPD       Y5, Y12, Y5
	VBROADCASTSD 24(R14), Y10
	VMULPD       Y10, Y8, Y11
	VMULPD       Y10, Y9, Y12
	VADDPD       Y6, Y11, Y6
	VADDPD       Y7, Y12, Y7
	ADDQ         $32, R14
	INCQ         BX
	CMPQ         BX, R9
	JLT          a4loop8

	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, (R11)
	VMOVUPD Y3, 32(R11)
	VMOVUPD Y4, (R12)
	VMOVUPD Y5, 32(R12)
	VMOVUPD Y6, (R10)
	VMOVUPD Y7, 32(R10)
	ADDQ    $64, DI
	ADDQ    $64, R11
	ADDQ    $64, R12
	ADDQ    $64, R10
	ADDQ    $64, SI
	SUBQ    $8, AX
	JMP     a4block8

a4block4:
	CMPQ    AX, $4
	JLT     a4block1
	VMOVUPD (DI), Y0
	VMOVUPD (R11), Y2
	VMOVUPD (R12), Y4
	VMOVUPD (R10), Y6
	XORQ    BX, BX
	MOVQ    CX, R14

a4loop4:
	MOVQ         (R8)(BX*8), DX
	VMOVUPD      (SI)(DX*8), Y8
	VBROADCASTSD (R14), Y10
	VMULPD       Y10, Y8, Y11
	VADDPD       Y0, Y11, Y0
	VBROADCASTSD 8(R14), Y10
	VMULPD       Y10, Y8, Y11
	VADDPD       Y2, Y11, Y2
	VBROADCASTSD 16(R14), Y10
	VMULPD       Y10, Y8, Y11
	VADDPD       Y4, Y11, Y4
	VBROADCASTSD 24(R14), Y10
	VMULPD       Y10, Y8, Y11
	VADDPD       Y6, Y11, Y6
	ADDQ         $32, R14
	INCQ         BX
	CMPQ         BX, R9
	JLT          a4loop4

	VMOVUPD Y0, (DI)
	VMOVUPD Y2, (R11)
	VMOVUPD Y4, (R12)
	VMOVUPD Y6, (R10)
	ADDQ    $32, DI
	ADDQ    $32, R11
	ADDQ    $32, R12
	ADDQ    $32, R10
	ADDQ    $32, SI
	SUBQ    $4, AX
	JMP     a4block4

a4block1:
	CMPQ   AX, $0
	JLE    a4done
	VMOVSD (DI), X0
	VMOVSD (R11), X2
	VMOVSD (R12), X4
	VMOVSD (R10), X6
	XORQ   BX, BX
	MOVQ   CX, R14

a4loop1:
	MOVQ   (R8)(BX*8), DX
	VMOVSD (SI)(DX*8), X8
	VMULSD (R14), X8, X11
	VADDSD X0, X11, X0
	VMULSD 8(R14), X8, X11
	VADDSD X2, X11, X2
	VMULSD 16(R14), X8, X11
	VADDSD X4, X11, X4
	VMULSD 24(R14), X8, X11
	VADDSD X6, X11, X6
	ADDQ   $32, R14
	INCQ   BX
	CMPQ   BX, R9
	JLT    a4loop1

	VMOVSD X0, (DI)
	VMOVSD X2, (R11)
	VMOVSD X4, (R12)
	VMOVSD X6, (R10)
	ADDQ   $8, DI
	ADDQ   $8, R11
	ADDQ   $8, R12
	ADDQ   $8, R10
	ADDQ   $8, SI
	DECQ   AX
	JMP    a4block1

a4done:
	VZEROUPPER
	RET

// func addScaledProductAVX2(dst, a *float64, n int, d, f float64)
//
// dst[k] = ((a[k]·d)·f) + dst[k]: the first sources are a[k], then the
// product, then the scaled product, as in gonum's ScalUnitaryTo and
// AxpyUnitary.
TEXT ·addScaledProductAVX2(SB), NOSPLIT, $0-40
	MOVQ         dst+0(FP), DI
	MOVQ         a+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSD d+24(FP), Y14
	VBROADCASTSD f+32(FP), Y15

sp16:
	CMPQ    CX, $16
	JLT     sp4
	VMOVUPD (SI), Y0
	VMOVUPD 32(SI), Y1
	VMOVUPD 64(SI), Y2
	VMOVUPD 96(SI), Y3
	VMULPD  Y14, Y0, Y0
	VMULPD  Y14, Y1, Y1
	VMULPD  Y14, Y2, Y2
	VMULPD  Y14, Y3, Y3
	VMULPD  Y15, Y0, Y0
	VMULPD  Y15, Y1, Y1
	VMULPD  Y15, Y2, Y2
	VMULPD  Y15, Y3, Y3
	VADDPD  (DI), Y0, Y0
	VADDPD  32(DI), Y1, Y1
	VADDPD  64(DI), Y2, Y2
	VADDPD  96(DI), Y3, Y3
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	ADDQ    $128, SI
	ADDQ    $128, DI
	SUBQ    $16, CX
	JMP     sp16

sp4:
	CMPQ    CX, $4
	JLT     sp1
	VMOVUPD (SI), Y0
	VMULPD  Y14, Y0, Y0
	VMULPD  Y15, Y0, Y0
	VADDPD  (DI), Y0, Y0
	VMOVUPD Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	SUBQ    $4, CX
	JMP     sp4

sp1:
	CMPQ   CX, $0
	JLE    spdone
	VMOVSD (SI), X0
	VMULSD X14, X0, X0
	VMULSD X15, X0, X0
	VADDSD (DI), X0, X0
	VMOVSD X0, (DI)
	ADDQ   $8, SI
	ADDQ   $8, DI
	DECQ   CX
	JMP    sp1

spdone:
	VZEROUPPER
	RET

// func dot1x4ListAVX2(x, b0, b1, b2, b3 *float64, blocks *int32, cnt int, acc *[4][4]float64)
//
// acc[s] = lane-wise Σ x[4t:4t+4]·b_s[4t:4t+4] over the blocks t listed
// (in increasing order), from +0: dot4x2AVX2's partial sums with the
// blocks where x is zero skipped.
TEXT ·dot1x4ListAVX2(SB), NOSPLIT, $0-64
	MOVQ   x+0(FP), AX
	MOVQ   b0+8(FP), SI
	MOVQ   b1+16(FP), DI
	MOVQ   b2+24(FP), R8
	MOVQ   b3+32(FP), R10
	MOVQ   blocks+40(FP), R9
	MOVQ   cnt+48(FP), CX
	MOVQ   acc+56(FP), R11
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	XORQ   BX, BX

d14loop:
	MOVLQSX (R9)(BX*4), DX
	SHLQ    $5, DX
	VMOVUPD (AX)(DX*1), Y4
	VMULPD  (SI)(DX*1), Y4, Y5
	VMULPD  (DI)(DX*1), Y4, Y6
	VMULPD  (R8)(DX*1), Y4, Y7
	VMULPD  (R10)(DX*1), Y4, Y8
	VADDPD  Y5, Y0, Y0
	VADDPD  Y6, Y1, Y1
	VADDPD  Y7, Y2, Y2
	VADDPD  Y8, Y3, Y3
	INCQ    BX
	CMPQ    BX, CX
	JLT     d14loop

	VMOVUPD Y0, 0(R11)
	VMOVUPD Y1, 32(R11)
	VMOVUPD Y2, 64(R11)
	VMOVUPD Y3, 96(R11)
	VZEROUPPER
	RET
