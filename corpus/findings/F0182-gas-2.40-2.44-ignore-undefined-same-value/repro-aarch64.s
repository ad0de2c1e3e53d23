# AArch64 (assemble with -EB for aarch64-be): .cfi_same_value / .cfi_undefined of x29 and x30
	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	.cfi_offset x29, 0
	.cfi_same_value x29
	.cfi_offset x30, 64
	nop
	.cfi_endproc
	.size f0, .-f0
	.globl f1
	.type f1, @function
f1:
	.cfi_startproc
	.cfi_offset x29, 0
	.cfi_undefined x29
	.cfi_offset x30, 8
	nop
	.cfi_endproc
	.size f1, .-f1
	.globl f2
	.type f2, @function
f2:
	.cfi_startproc
	.cfi_endproc
	.pushsection .text.unlikely,"ax",@progbits
f2.cold:
	.cfi_startproc
	.cfi_undefined x29
	nop
	.cfi_endproc
	.popsection
	.size f2, .-f2
	.globl f3
	.type f3, @function
f3:
	.cfi_startproc
	.cfi_endproc
	.pushsection .text.unlikely,"ax",@progbits
f3.cold:
	.cfi_startproc
	.cfi_offset x30, 16
	.cfi_same_value x30
	nop
	.cfi_endproc
	.popsection
	.size f3, .-f3
	.globl f4
	.type f4, @function
f4:
	.cfi_startproc
	.cfi_offset x30, 16
	.cfi_same_value x30
	.cfi_undefined x29
	nop
	.cfi_endproc
	.size f4, .-f4
	.globl f5
	.type f5, @function
f5:
	.cfi_startproc
	.cfi_offset x30, 32
	.cfi_undefined x30
	nop
	.cfi_endproc
	.size f5, .-f5
	.globl f6
	.type f6, @function
f6:
	.cfi_startproc
	.cfi_undefined x30
	nop
	.cfi_endproc
	.size f6, .-f6
