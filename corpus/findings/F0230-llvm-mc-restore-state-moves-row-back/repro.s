	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	mov %rax, 0x12345678(%rsp)
	.cfi_def_cfa_offset 24
	movabs $0x1122334455667788, %rax
	.cfi_remember_state
	.cfi_def_cfa_offset -16
	.cfi_restore_state
	.cfi_adjust_cfa_offset -16
	.cfi_endproc
	.size f0, .-f0
