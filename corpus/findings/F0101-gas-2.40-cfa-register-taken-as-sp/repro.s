# .cfi_def_cfa on a register other than SP/FP (a DRAP-style prologue).
	.text
	.globl	drap
	.type	drap, @function
drap:
	.cfi_startproc
	leaq	8(%rsp), %r10
	.cfi_def_cfa %r10, 0
	andq	$-16, %rsp
	pushq	-8(%r10)
	leaq	-8(%r10), %rsp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	drap, .-drap
	.section	.note.GNU-stack,"",@progbits
