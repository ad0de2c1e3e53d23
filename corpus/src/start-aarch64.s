// Entry point of the corpus executables: the outermost frame, its return address undefined.
	.file	"start-aarch64.s"
	.text
	.align	2
	.globl	_start
	.type	_start, %function
_start:
	.cfi_startproc
	.cfi_undefined x30
	mov	x29, #0
	mov	x30, #0
	mov	x0, sp
	bl	corpus_main
	mov	x8, #93
	svc	#0
	.cfi_endproc
	.size	_start, .-_start

// An outermost frame that does set up a frame record before calling.
	.globl	thread_start
	.type	thread_start, %function
thread_start:
	.cfi_startproc
	.cfi_undefined x30
	stp	x29, x30, [sp, -16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	mov	x29, sp
	.cfi_def_cfa_register 29
	bl	corpus_main
	ldp	x29, x30, [sp], 16
	.cfi_def_cfa sp, 0
	brk	#0
	.cfi_endproc
	.size	thread_start, .-thread_start
	.section	.note.GNU-stack,"",@progbits
