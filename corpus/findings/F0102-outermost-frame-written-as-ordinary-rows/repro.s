# An outermost frame: the return address is undefined (.cfi_undefined rip), as in _start.
	.text
	.globl	_start
	.type	_start, @function
_start:
	.cfi_startproc
	.cfi_undefined rip
	xorl	%ebp, %ebp
	movq	%rsp, %rdi
	andq	$-16, %rsp
	call	main_entry@PLT
	hlt
	.cfi_endproc
	.size	_start, .-_start
	.section	.note.GNU-stack,"",@progbits
