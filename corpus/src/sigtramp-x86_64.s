# Signal-trampoline-like frames (.cfi_signal_frame).
	.file	"sigtramp-x86_64.s"
	.text

# Like the kernel's rt_sigreturn restorer, but with plain CFI: the interrupted frame's
# registers are in the ucontext above the stack pointer (large offsets).
	.globl	sig_restorer_simple
	.type	sig_restorer_simple, @function
	nop
sig_restorer_simple:
	.cfi_startproc simple
	.cfi_signal_frame
	.cfi_def_cfa rsp, 160
	.cfi_offset rbp, -40
	.cfi_offset rip, -8
	movq	$15, %rax
	syscall
	.cfi_endproc
	.size	sig_restorer_simple, .-sig_restorer_simple

# Like glibc's __restore_rt: CFA and registers given by DWARF expressions (.cfi_escape).
	.globl	sig_restorer_expr
	.type	sig_restorer_expr, @function
	nop
sig_restorer_expr:
	.cfi_startproc simple
	.cfi_signal_frame
	# DW_CFA_def_cfa_expression: DW_OP_breg7 (rsp) 160, DW_OP_deref
	.cfi_escape 0x0f, 0x03, 0x77, 0xa0, 0x01
	# DW_CFA_expression rip: DW_OP_breg7 (rsp) 168
	.cfi_escape 0x10, 0x10, 0x03, 0x77, 0xa8, 0x01
	movq	$15, %rax
	syscall
	.cfi_endproc
	.size	sig_restorer_expr, .-sig_restorer_expr

# A signal handler-style frame: a normal frame, marked as a signal frame.
	.globl	sig_marked_normal
	.type	sig_marked_normal, @function
sig_marked_normal:
	.cfi_startproc
	.cfi_signal_frame
	pushq	%rbx
	.cfi_def_cfa_offset 16
	.cfi_offset rbx, -16
	call	ext_use@PLT
	popq	%rbx
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	sig_marked_normal, .-sig_marked_normal
	.section	.note.GNU-stack,"",@progbits
