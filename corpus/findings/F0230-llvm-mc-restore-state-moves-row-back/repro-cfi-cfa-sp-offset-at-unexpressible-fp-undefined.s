	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	sub $4096, %rsp
	.cfi_offset %rbp, -24
	.cfi_undefined %rbp
	sub $4096, %rsp
	.cfi_remember_state
	.cfi_def_cfa_offset 25824
	.cfi_restore_state
	.cfi_def_cfa_offset -7032
	.cfi_endproc
	.size f0, .-f0
