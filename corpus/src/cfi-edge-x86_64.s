# Hand-written CFI at the edges of what SFrame can say.  One function per case, so an
# assembler that skips the SFrame FDE of one of them (with a warning) keeps the others.
	.file	"cfi-edge-x86_64.s"
	.text

# .cfi_remember_state / .cfi_restore_state around an early exit.
	.globl	edge_remember
	.type	edge_remember, @function
edge_remember:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register rbp
	testl	%edi, %edi
	je	1f
	.cfi_remember_state
	popq	%rbp
	.cfi_def_cfa rsp, 8
	ret
1:
	.cfi_restore_state
	call	ext_use@PLT
	leave
	.cfi_def_cfa rsp, 8
	ret
	.cfi_endproc
	.size	edge_remember, .-edge_remember

# CFA offsets of 2 and 4 bytes, FP saved far away.
	.globl	edge_big_offsets
	.type	edge_big_offsets, @function
edge_big_offsets:
	.cfi_startproc
	pushq	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset rbp, 0
	subq	$1000, %rsp
	.cfi_adjust_cfa_offset 1000
	subq	$69000, %rsp
	.cfi_adjust_cfa_offset 69000
	movq	%rbp, 69992(%rsp)
	.cfi_offset rbp, -16
	addq	$70000, %rsp
	.cfi_adjust_cfa_offset -70000
	popq	%rbp
	.cfi_adjust_cfa_offset -8
	.cfi_restore rbp
	ret
	.cfi_endproc
	.size	edge_big_offsets, .-edge_big_offsets

# CFA based on a register that is neither SP nor FP (as in DRAP).
	.globl	edge_cfa_r10
	.type	edge_cfa_r10, @function
edge_cfa_r10:
	.cfi_startproc
	leaq	8(%rsp), %r10
	.cfi_def_cfa r10, 0
	andq	$-64, %rsp
	pushq	-8(%r10)
	# A leaf: %r10 is call-clobbered, so a call would end the rule's validity, and %rbp is
	# left alone, so "FP unchanged" holds throughout.
	nop
	leaq	-8(%r10), %rsp
	.cfi_def_cfa rsp, 8
	ret
	.cfi_endproc
	.size	edge_cfa_r10, .-edge_cfa_r10

# The return address moved to another register.
	.globl	edge_ra_in_reg
	.type	edge_ra_in_reg, @function
edge_ra_in_reg:
	.cfi_startproc
	popq	%rax
	.cfi_def_cfa_offset 0
	.cfi_register rip, rax
	jmp	*%rax
	.cfi_endproc
	.size	edge_ra_in_reg, .-edge_ra_in_reg

# Callee-saved register rules SFrame does not track (only CFA, FP, RA are), DW_CFA_nop and
# DW_CFA_GNU_args_size escapes.
	.globl	edge_other_regs
	.type	edge_other_regs, @function
edge_other_regs:
	.cfi_startproc
	.cfi_escape 0x00
	pushq	%r12
	.cfi_def_cfa_offset 16
	.cfi_offset r12, -16
	.cfi_same_value rbx
	.cfi_undefined r13
	.cfi_escape 0x2e, 0x10
	call	ext_use@PLT
	.cfi_escape 0x2e, 0x00
	popq	%r12
	.cfi_def_cfa_offset 8
	.cfi_restore r12
	ret
	.cfi_endproc
	.size	edge_other_regs, .-edge_other_regs

# An FP-based frame whose FP is saved at CFA-24 (after another push), with the CFA
# defined as FP+16.
	.globl	edge_fp_offset
	.type	edge_fp_offset, @function
edge_fp_offset:
	.cfi_startproc
	pushq	%rbx
	.cfi_def_cfa_offset 16
	.cfi_offset rbx, -16
	pushq	%rbp
	.cfi_def_cfa_offset 24
	.cfi_offset rbp, -24
	leaq	8(%rsp), %rbp
	.cfi_def_cfa rbp, 16
	call	ext_use@PLT
	popq	%rbp
	.cfi_def_cfa rsp, 16
	popq	%rbx
	.cfi_def_cfa_offset 8
	ret
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
	.globl	edge_other_section
	.type	edge_other_section, @function
edge_other_section:
	.cfi_startproc
	subq	$24, %rsp
	.cfi_def_cfa_offset 32
	call	ext_use@PLT
	addq	$24, %rsp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	edge_other_section, .-edge_other_section
	.section	.note.GNU-stack,"",@progbits
