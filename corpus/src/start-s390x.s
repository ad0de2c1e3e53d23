# Entry point of the corpus executables: the outermost frame, its return address undefined.
	.file	"start-s390x.s"
	.text
	.align	8
	.globl	_start
	.type	_start, @function
_start:
	.cfi_startproc
	.cfi_undefined %r14
	lghi	%r11, 0
	lgr	%r2, %r15
	aghi	%r15, -160
	.cfi_adjust_cfa_offset 160
	brasl	%r14, corpus_main
	svc	1
	.cfi_endproc
	.size	_start, .-_start

# An outermost frame that saves its frame pointer and sets one up before calling.
	.globl	thread_start
	.type	thread_start, @function
thread_start:
	.cfi_startproc
	.cfi_undefined %r14
	stg	%r11, 88(%r15)
	.cfi_offset %r11, -72
	aghi	%r15, -160
	.cfi_def_cfa_offset 320
	lgr	%r11, %r15
	.cfi_def_cfa_register %r11
	brasl	%r14, corpus_main
	lg	%r11, 248(%r11)
	.cfi_def_cfa %r15, 320
	.cfi_restore %r11
	j	.
	.cfi_endproc
	.size	thread_start, .-thread_start
	.section	.note.GNU-stack,"",@progbits
