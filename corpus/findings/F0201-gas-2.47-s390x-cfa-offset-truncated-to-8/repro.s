# s390x: CFA offsets that are not multiples of 8, on SP (%r15), FP (%r11) and another register (%r7)
	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	.cfi_def_cfa_offset 193
	nopr
	.cfi_endproc
	.size f0, .-f0
	.globl f1
	.type f1, @function
f1:
	.cfi_startproc
	.cfi_def_cfa %r11, 186
	nopr
	.cfi_endproc
	.size f1, .-f1
	.globl f2
	.type f2, @function
f2:
	.cfi_startproc
	.cfi_def_cfa %r7, 15
	nopr
	.cfi_endproc
	.size f2, .-f2
