# AArch64 (assemble with -EB for aarch64-be): f0 CFA, f1 FP, f2 RA (with F0103), f3/f4 the RA signing state (.cfi_negate_ra_state), each changed at the .cfi_remember_state's address
	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	sub sp, sp, #32
	.cfi_def_cfa x29, 32
	.cfi_remember_state
	sub sp, sp, #32
	.cfi_restore_state
	nop
	.cfi_endproc
	.size f0, .-f0
	.globl f1
	.type f1, @function
f1:
	.cfi_startproc
	mov x29, sp
	.cfi_offset x29, 4648
	.cfi_remember_state
	.cfi_restore x29
	nop
	.cfi_restore_state
	add sp, sp, #32
	.cfi_endproc
	.size f1, .-f1
	.globl f2
	.type f2, @function
f2:
	.cfi_startproc
	sub sp, sp, #32
	.cfi_rel_offset x30, -24
	.cfi_remember_state
	stp x29, x30, [sp, -16]!
	.cfi_restore_state
	.cfi_offset x29, -8
	ldp x29, x30, [sp], 16
	.cfi_endproc
	.size f2, .-f2
	.globl f3
	.type f3, @function
f3:
	.cfi_startproc
	mov x9, sp
	.cfi_negate_ra_state
	.cfi_remember_state
	mov x29, sp
	.cfi_restore_state
	.cfi_negate_ra_state
	stp x29, x30, [sp, -16]!
	.cfi_endproc
	.size f3, .-f3
	.globl f4
	.type f4, @function
f4:
	.cfi_startproc
	mov x9, sp
	.cfi_remember_state
	.cfi_negate_ra_state
	stp x29, x30, [sp, -16]!
	.cfi_restore_state
	.cfi_remember_state
	mov x29, sp
	.cfi_restore_state
	.cfi_negate_ra_state
	sub sp, sp, #32
	.cfi_endproc
	.size f4, .-f4
