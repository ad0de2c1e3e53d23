	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	.cfi_endproc
	.pushsection .text.unlikely,"ax",@progbits
f0.cold:
	.cfi_startproc
	pop %rbx
	.cfi_def_cfa %rbp, -30888
	.cfi_remember_state
	lea 8(%rsp), %r10
	.cfi_restore_state
	.cfi_offset %rip, 0
	nop
	.cfi_endproc
	.popsection
	.size f0, .-f0
