// A non-leaf AArch64 function without a frame record: it saves only x30 (LR).
// GNU as 2.47.50 --gsframe writes an FRE with 2 data words (CFA, RA) for it.
	.text
	.globl	nonleaf_call
	.type	nonleaf_call, %function
nonleaf_call:
	.cfi_startproc
	str	x30, [sp, -32]!
	.cfi_def_cfa_offset 32
	.cfi_offset 30, -32
	bl	ext_sink
	ldr	x30, [sp], 32
	.cfi_restore 30
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	nonleaf_call, .-nonleaf_call
