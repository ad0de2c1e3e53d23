	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	nop
	.cfi_def_cfa_register %rbp
	.cfi_register %rbp, %r15
	sub $4096, %rsp
	.cfi_remember_state
	.cfi_def_cfa_offset 16
	.cfi_restore_state
	.cfi_def_cfa %rbp, -477230432
	.cfi_endproc
	.size f0, .-f0
