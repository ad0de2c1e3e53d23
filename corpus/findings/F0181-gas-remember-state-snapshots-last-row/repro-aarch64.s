# AArch64 (assemble with -EB for aarch64-be): f0 CFA offset, f1 RA slot changed at the .cfi_remember_state's address
	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	sub sp, sp, #32
	.cfi_adjust_cfa_offset 56
	.cfi_remember_state
	mov x29, sp
	.cfi_restore_state
	nop
	.cfi_endproc
	.size f0, .-f0
	.globl f1
	.type f1, @function
f1:
	.cfi_startproc
	ldp x29, x30, [sp], 16
	.cfi_rel_offset x30, 25136
	.cfi_remember_state
	mov x9, sp
	.cfi_restore_state
	str x19, [sp, 8]
	.cfi_endproc
	.size f1, .-f1
