	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	nopw 0x0(%rax,%rax,1)
	.cfi_def_cfa_offset -17576
	.cfi_remember_state
	.cfi_offset %rip, 0
	.cfi_adjust_cfa_offset 3320
	xor %eax, %eax
	.cfi_offset %rbp, 24
	.cfi_restore_state
	.cfi_endproc
	.size f0, .-f0
