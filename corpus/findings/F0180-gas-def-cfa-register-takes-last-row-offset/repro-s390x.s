# s390x: f0 CFA on FP (%r11), f1 on SP (%r15), f2 on another register (flex FDE)
	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	aghi %r15, -160
	.cfi_adjust_cfa_offset 16
	.cfi_def_cfa_register %r11
	lgr %r1, %r15
	.cfi_endproc
	.size f0, .-f0
	.globl f1
	.type f1, @function
f1:
	.cfi_startproc
	stmg %r6, %r15, 48(%r15)
	.cfi_def_cfa_offset 48
	.cfi_def_cfa_register %r15
	lay %r15, -4096(%r15)
	.cfi_endproc
	.size f1, .-f1
	.globl f2
	.type f2, @function
f2:
	.cfi_startproc
	lgr %r11, %r15
	.cfi_def_cfa %r15, -24
	.cfi_def_cfa_register %r12
	aghi %r15, -160
	.cfi_endproc
	.size f2, .-f2
