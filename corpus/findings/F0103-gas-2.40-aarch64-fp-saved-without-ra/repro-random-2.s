# AArch64 (assemble with -EB for aarch64-be): RA saved before .cfi_remember_state is lost by 2.40's restore (F0181), then x29 saved without x30: the FP's offset is read as the RA
	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	sub sp, sp, #32
	.cfi_rel_offset x30, -24
	.cfi_remember_state
	stp x29, x30, [sp, -16]!
	.cfi_restore_state
	.cfi_offset x29, -8
	ldp x29, x30, [sp], 16
	.cfi_endproc
	.size f0, .-f0
