// Signal-trampoline-like frames (.cfi_signal_frame).
	.file	"sigtramp-aarch64.s"
	.text
	.align	2

// Like the kernel's rt_sigreturn trampoline, with plain CFI: the interrupted frame's
// registers are in the sigcontext above the stack pointer (large offsets).
	.globl	sig_restorer_simple
	.type	sig_restorer_simple, %function
	nop
sig_restorer_simple:
	.cfi_startproc simple
	.cfi_signal_frame
	.cfi_def_cfa sp, 4688
	.cfi_offset x29, -4456
	.cfi_offset x30, -4448
	mov	x8, #139
	svc	#0
	.cfi_endproc
	.size	sig_restorer_simple, .-sig_restorer_simple

// Like the kernel's vDSO sigreturn CFI: CFA and registers given by DWARF expressions.
	.globl	sig_restorer_expr
	.type	sig_restorer_expr, %function
	nop
sig_restorer_expr:
	.cfi_startproc simple
	.cfi_signal_frame
	// DW_CFA_def_cfa_expression: DW_OP_breg31 (sp) 304, DW_OP_deref
	.cfi_escape 0x0f, 0x04, 0x8f, 0xb0, 0x02, 0x06
	// DW_CFA_expression x30: DW_OP_breg31 (sp) 552
	.cfi_escape 0x10, 0x1e, 0x03, 0x8f, 0xa8, 0x04
	mov	x8, #139
	svc	#0
	.cfi_endproc
	.size	sig_restorer_expr, .-sig_restorer_expr

// A normal frame, marked as a signal frame.
	.globl	sig_marked_normal
	.type	sig_marked_normal, %function
sig_marked_normal:
	.cfi_startproc
	.cfi_signal_frame
	stp	x29, x30, [sp, -16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	mov	x29, sp
	bl	ext_use
	ldp	x29, x30, [sp], 16
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	sig_marked_normal, .-sig_marked_normal
	.section	.note.GNU-stack,"",@progbits
