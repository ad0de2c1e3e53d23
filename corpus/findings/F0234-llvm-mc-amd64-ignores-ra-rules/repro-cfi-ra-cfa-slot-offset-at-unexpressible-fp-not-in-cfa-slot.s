	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	.cfi_endproc
	.pushsection .text.unlikely,"ax",@progbits
f0.cold:
	.cfi_startproc
	.cfi_offset %rip, -24
	.cfi_register %rbp, %rbx
	nop
	.cfi_endproc
	.popsection
	.size f0, .-f0
