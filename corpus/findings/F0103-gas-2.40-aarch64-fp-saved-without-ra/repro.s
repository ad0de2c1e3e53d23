# AArch64: the frame pointer saved, the return address never moved from LR.
	.text
	.globl	fp_only
	.type	fp_only, @function
fp_only:
	.cfi_startproc
	str	x29, [sp, -16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	mov	x29, sp
	ldr	x29, [sp], 16
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	fp_only, .-fp_only
	.section	.note.GNU-stack,"",@progbits
