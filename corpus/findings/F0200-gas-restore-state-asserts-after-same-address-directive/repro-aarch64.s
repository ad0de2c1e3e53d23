# AArch64 (assemble with -EB for aarch64-be): .cfi_restore_state at an address where .cfi_def_cfa_offset already changed the row
	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	str x19, [sp, 8]
	.cfi_remember_state
	.cfi_def_cfa_offset 0
	.cfi_restore_state
	nop
	.cfi_endproc
	.size f0, .-f0
