# AMD64: .cfi_restore_state at an address where .cfi_def_cfa_offset already changed the row
	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	lea 8(%rsp), %r10
	.cfi_def_cfa_offset 48
	.cfi_remember_state
	.cfi_restore_state
	nop
	.cfi_endproc
	.size f0, .-f0
