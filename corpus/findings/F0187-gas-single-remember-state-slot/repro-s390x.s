# s390x: nested .cfi_remember_state/.cfi_restore_state pairs
	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	.cfi_remember_state
	.cfi_def_cfa_register %r12
	.cfi_remember_state
	lay %r15, -4096(%r15)
	.cfi_restore_state
	stmg %r6, %r15, 48(%r15)
	.cfi_restore_state
	nopr
	.cfi_endproc
	.size f0, .-f0
	.globl f1
	.type f1, @function
f1:
	.cfi_startproc
	.cfi_undefined %r14
	.cfi_remember_state
	.cfi_register %r14, %r1
	.cfi_remember_state
	lgr %r11, %r15
	.cfi_restore_state
	nopr
	.cfi_restore_state
	nopr
	.cfi_endproc
	.size f1, .-f1
