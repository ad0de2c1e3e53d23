# s390x: .cfi_restore_state at an address where .cfi_def_cfa_offset already changed the row
	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	lgr %r1, %r15
	.cfi_remember_state
	.cfi_def_cfa_offset 168
	.cfi_restore_state
	nopr
	.cfi_endproc
	.size f0, .-f0
