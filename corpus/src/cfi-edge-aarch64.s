// Hand-written CFI at the edges of what SFrame can say.  One function per case, so an
// assembler that skips the SFrame FDE of one of them (with a warning) keeps the others.
	.file	"cfi-edge-aarch64.s"
	.text
	.align	2

// .cfi_remember_state / .cfi_restore_state around an early exit.
	.globl	edge_remember
	.type	edge_remember, %function
edge_remember:
	.cfi_startproc
	stp	x29, x30, [sp, -32]!
	.cfi_def_cfa_offset 32
	.cfi_offset 29, -32
	.cfi_offset 30, -24
	mov	x29, sp
	cbz	w0, 1f
	.cfi_remember_state
	ldp	x29, x30, [sp], 32
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
1:
	.cfi_restore_state
	bl	ext_use
	ldp	x29, x30, [sp], 32
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	edge_remember, .-edge_remember

// CFA offsets of 2 and 4 bytes; FP and RA saved far from the CFA.
	.globl	edge_big_offsets
	.type	edge_big_offsets, %function
edge_big_offsets:
	.cfi_startproc
	sub	sp, sp, #1000
	.cfi_def_cfa_offset 1000
	sub	sp, sp, #16, lsl #12
	.cfi_def_cfa_offset 66536
	sub	sp, sp, #3464
	.cfi_def_cfa_offset 70000
	stp	x29, x30, [sp]
	.cfi_offset 29, -70000
	.cfi_offset 30, -69992
	bl	ext_use
	ldp	x29, x30, [sp]
	.cfi_restore 29
	.cfi_restore 30
	add	sp, sp, #17, lsl #12
	.cfi_def_cfa_offset 368
	add	sp, sp, #368
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	edge_big_offsets, .-edge_big_offsets

// CFA based on a register that is neither SP nor FP.
	.globl	edge_cfa_x9
	.type	edge_cfa_x9, %function
edge_cfa_x9:
	.cfi_startproc
	mov	x9, sp
	.cfi_def_cfa x9, 0
	sub	sp, sp, #64
	and	sp, x9, #-64
	mov	sp, x9
	.cfi_def_cfa sp, 0
	ret
	.cfi_endproc
	.size	edge_cfa_x9, .-edge_cfa_x9

// The return address moved to another register.
	.globl	edge_ra_in_reg
	.type	edge_ra_in_reg, %function
edge_ra_in_reg:
	.cfi_startproc
	mov	x16, x30
	.cfi_register 30, 16
	bl	ext_use
	mov	x30, x16
	.cfi_restore 30
	ret
	.cfi_endproc
	.size	edge_ra_in_reg, .-edge_ra_in_reg

// Return address signing (PAC): .cfi_negate_ra_state (A key) and a B-key frame.
	.globl	edge_pac_a
	.type	edge_pac_a, %function
edge_pac_a:
	.cfi_startproc
	hint	#25		// paciasp
	.cfi_negate_ra_state
	stp	x29, x30, [sp, -16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	bl	ext_use
	ldp	x29, x30, [sp], 16
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	hint	#29		// autiasp
	.cfi_negate_ra_state
	ret
	.cfi_endproc
	.size	edge_pac_a, .-edge_pac_a

	.globl	edge_pac_b
	.type	edge_pac_b, %function
edge_pac_b:
	.cfi_startproc
	.cfi_b_key_frame
	hint	#27		// pacibsp
	.cfi_window_save
	stp	x29, x30, [sp, -16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	bl	ext_use
	ldp	x29, x30, [sp], 16
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	hint	#31		// autibsp
	.cfi_window_save
	ret
	.cfi_endproc
	.size	edge_pac_b, .-edge_pac_b

// Callee-saved register rules SFrame does not track, and a DW_CFA_nop escape.
	.globl	edge_other_regs
	.type	edge_other_regs, %function
edge_other_regs:
	.cfi_startproc
	.cfi_escape 0x00
	stp	x19, x20, [sp, -16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 19, -16
	.cfi_offset 20, -8
	.cfi_same_value 21
	.cfi_undefined 22
	ldp	x19, x20, [sp], 16
	.cfi_restore 20
	.cfi_restore 19
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	edge_other_regs, .-edge_other_regs

// FP-based CFA with an offset (frame record below the locals).
	.globl	edge_fp_offset
	.type	edge_fp_offset, %function
edge_fp_offset:
	.cfi_startproc
	sub	sp, sp, #48
	.cfi_def_cfa_offset 48
	stp	x29, x30, [sp, 16]
	.cfi_offset 29, -32
	.cfi_offset 30, -24
	add	x29, sp, 16
	.cfi_def_cfa 29, 32
	bl	ext_use
	ldp	x29, x30, [sp, 16]
	.cfi_def_cfa sp, 48
	.cfi_restore 29
	.cfi_restore 30
	add	sp, sp, #48
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	edge_fp_offset, .-edge_fp_offset

// A function with an empty body.
	.globl	edge_empty
	.type	edge_empty, %function
edge_empty:
	.cfi_startproc
	.cfi_endproc
	.size	edge_empty, .-edge_empty

// A function in another text section.
	.section	.text.unlikely,"ax",@progbits
	.align	2
	.globl	edge_other_section
	.type	edge_other_section, %function
edge_other_section:
	.cfi_startproc
	stp	x29, x30, [sp, -32]!
	.cfi_def_cfa_offset 32
	.cfi_offset 29, -32
	.cfi_offset 30, -24
	bl	ext_use
	ldp	x29, x30, [sp], 32
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	edge_other_section, .-edge_other_section
	.section	.note.GNU-stack,"",@progbits
