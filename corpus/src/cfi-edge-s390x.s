# Hand-written CFI at the edges of what SFrame can say.  One function per case, so an
# assembler that skips the SFrame FDE of one of them (with a warning) keeps the others.
	.file	"cfi-edge-s390x.s"
	.text
	.align	8

# .cfi_remember_state / .cfi_restore_state around an early exit.
	.globl	edge_remember
	.type	edge_remember, @function
edge_remember:
	.cfi_startproc
	stmg	%r11, %r15, 88(%r15)
	.cfi_offset %r11, -72
	.cfi_offset %r14, -48
	.cfi_offset %r15, -40
	aghi	%r15, -160
	.cfi_def_cfa_offset 320
	ltr	%r2, %r2
	jne	1f
	.cfi_remember_state
	lmg	%r11, %r15, 248(%r15)
	.cfi_restore %r15
	.cfi_restore %r14
	.cfi_restore %r11
	.cfi_def_cfa_offset 160
	br	%r14
1:
	.cfi_restore_state
	brasl	%r14, ext_use@PLT
	lmg	%r11, %r15, 248(%r15)
	.cfi_restore %r15
	.cfi_restore %r14
	.cfi_restore %r11
	.cfi_def_cfa_offset 160
	br	%r14
	.cfi_endproc
	.size	edge_remember, .-edge_remember

# CFA offsets of 2 and 4 bytes.
	.globl	edge_big_offsets
	.type	edge_big_offsets, @function
edge_big_offsets:
	.cfi_startproc
	stmg	%r11, %r15, 88(%r15)
	.cfi_offset %r11, -72
	.cfi_offset %r14, -48
	.cfi_offset %r15, -40
	aghi	%r15, -1000
	.cfi_def_cfa_offset 1160
	agfi	%r15, -69000
	.cfi_def_cfa_offset 70160
	brasl	%r14, ext_use@PLT
	lmg	%r11, %r15, 70088(%r15)
	.cfi_restore %r15
	.cfi_restore %r14
	.cfi_restore %r11
	.cfi_def_cfa_offset 160
	br	%r14
	.cfi_endproc
	.size	edge_big_offsets, .-edge_big_offsets

# CFA based on a register that is neither SP nor FP.
	.globl	edge_cfa_r1
	.type	edge_cfa_r1, @function
edge_cfa_r1:
	.cfi_startproc
	lgr	%r1, %r15
	.cfi_def_cfa %r1, 160
	aghi	%r15, -64
	lgr	%r15, %r1
	.cfi_def_cfa %r15, 160
	br	%r14
	.cfi_endproc
	.size	edge_cfa_r1, .-edge_cfa_r1

# Return address and frame pointer saved in floating-point registers (as GCC does in
# leaf-like functions on s390x); SFrame V3 encodes such registers in the data words.
	.globl	edge_ra_in_fpr
	.type	edge_ra_in_fpr, @function
edge_ra_in_fpr:
	.cfi_startproc
	ldgr	%f0, %r14
	.cfi_register %r14, %f0
	ldgr	%f2, %r11
	.cfi_register %r11, %f2
	aghi	%r15, -160
	.cfi_def_cfa_offset 320
	lgr	%r11, %r15
	# A leaf: %f0 and %f2 are call-clobbered, so the saved RA and FP must not live across a
	# call (GCC keeps RA/FP in FPRs in leaf functions only).
	nopr	%r7
	aghi	%r15, 160
	.cfi_def_cfa_offset 160
	lgdr	%r11, %f2
	.cfi_restore %r11
	lgdr	%r14, %f0
	.cfi_restore %r14
	br	%r14
	.cfi_endproc
	.size	edge_ra_in_fpr, .-edge_ra_in_fpr

# The return address moved to a general register.
	.globl	edge_ra_in_reg
	.type	edge_ra_in_reg, @function
edge_ra_in_reg:
	.cfi_startproc
	lgr	%r0, %r14
	.cfi_register %r14, %r0
	brasl	%r14, ext_use@PLT
	lgr	%r14, %r0
	.cfi_restore %r14
	br	%r14
	.cfi_endproc
	.size	edge_ra_in_reg, .-edge_ra_in_reg

# Callee-saved register rules SFrame does not track, and a DW_CFA_nop escape.
	.globl	edge_other_regs
	.type	edge_other_regs, @function
edge_other_regs:
	.cfi_startproc
	.cfi_escape 0x00
	stmg	%r6, %r7, 48(%r15)
	.cfi_offset %r6, -112
	.cfi_offset %r7, -104
	.cfi_same_value %r8
	.cfi_undefined %r9
	lmg	%r6, %r7, 48(%r15)
	.cfi_restore %r6
	.cfi_restore %r7
	br	%r14
	.cfi_endproc
	.size	edge_other_regs, .-edge_other_regs

# FP-based CFA (r11) with an offset.
	.globl	edge_fp_offset
	.type	edge_fp_offset, @function
edge_fp_offset:
	.cfi_startproc
	stmg	%r11, %r15, 88(%r15)
	.cfi_offset %r11, -72
	.cfi_offset %r14, -48
	.cfi_offset %r15, -40
	aghi	%r15, -176
	.cfi_def_cfa_offset 336
	lgr	%r11, %r15
	.cfi_def_cfa_register %r11
	brasl	%r14, ext_use@PLT
	lmg	%r11, %r15, 264(%r11)
	.cfi_def_cfa %r15, 160
	.cfi_restore %r15
	.cfi_restore %r14
	.cfi_restore %r11
	br	%r14
	.cfi_endproc
	.size	edge_fp_offset, .-edge_fp_offset

# A function with an empty body.
	.globl	edge_empty
	.type	edge_empty, @function
edge_empty:
	.cfi_startproc
	.cfi_endproc
	.size	edge_empty, .-edge_empty

# A function in another text section.
	.section	.text.unlikely,"ax",@progbits
	.align	8
	.globl	edge_other_section
	.type	edge_other_section, @function
edge_other_section:
	.cfi_startproc
	stmg	%r14, %r15, 112(%r15)
	.cfi_offset %r14, -48
	.cfi_offset %r15, -40
	aghi	%r15, -160
	.cfi_def_cfa_offset 320
	brasl	%r14, ext_use@PLT
	lmg	%r14, %r15, 272(%r15)
	.cfi_restore %r15
	.cfi_restore %r14
	.cfi_def_cfa_offset 160
	br	%r14
	.cfi_endproc
	.size	edge_other_section, .-edge_other_section
	.section	.note.GNU-stack,"",@progbits
