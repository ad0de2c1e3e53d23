# Signal-trampoline-like frames (.cfi_signal_frame).
	.file	"sigtramp-s390x.s"
	.text
	.align	8

# Like the kernel's rt_sigreturn trampoline, with plain CFI: the interrupted frame's
# registers are in the ucontext above the stack pointer (large offsets).
	.globl	sig_restorer_simple
	.type	sig_restorer_simple, @function
	nopr	%r7
sig_restorer_simple:
	.cfi_startproc simple
	.cfi_signal_frame
	.cfi_def_cfa %r15, 1000
	.cfi_offset %r11, -600
	.cfi_offset %r14, -576
	svc	173
	.cfi_endproc
	.size	sig_restorer_simple, .-sig_restorer_simple

# Like the kernel's vDSO sigreturn CFI: CFA and registers given by DWARF expressions.
	.globl	sig_restorer_expr
	.type	sig_restorer_expr, @function
	nopr	%r7
sig_restorer_expr:
	.cfi_startproc simple
	.cfi_signal_frame
	# DW_CFA_def_cfa_expression: DW_OP_breg15 (r15) 160, DW_OP_deref
	.cfi_escape 0x0f, 0x04, 0x7f, 0xa0, 0x01, 0x06
	# DW_CFA_expression r14: DW_OP_breg15 (r15) 280
	.cfi_escape 0x10, 0x0e, 0x03, 0x7f, 0x98, 0x02
	svc	173
	.cfi_endproc
	.size	sig_restorer_expr, .-sig_restorer_expr

# A normal frame, marked as a signal frame.
	.globl	sig_marked_normal
	.type	sig_marked_normal, @function
sig_marked_normal:
	.cfi_startproc
	.cfi_signal_frame
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
	.size	sig_marked_normal, .-sig_marked_normal
	.section	.note.GNU-stack,"",@progbits
