# Entry point of the corpus executables: the outermost frame, its return address undefined.
	.file	"start-x86_64.s"
	.text
	.globl	_start
	.type	_start, @function
_start:
	.cfi_startproc
	.cfi_undefined rip
	xorl	%ebp, %ebp
	movq	%rsp, %rdi
	andq	$-16, %rsp
	call	corpus_main
	movl	%eax, %edi
	movl	$60, %eax
	syscall
	hlt
	.cfi_endproc
	.size	_start, .-_start

# An outermost frame that does set up a frame pointer before calling.
	.globl	thread_start
	.type	thread_start, @function
thread_start:
	.cfi_startproc
	.cfi_undefined rip
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register rbp
	call	corpus_main
	popq	%rbp
	.cfi_def_cfa rsp, 8
	hlt
	.cfi_endproc
	.size	thread_start, .-thread_start
	.section	.note.GNU-stack,"",@progbits
