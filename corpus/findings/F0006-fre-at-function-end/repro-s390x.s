# A CFI directive after a function's last instruction: GNU as 2.47 --gsframe (s390x) writes
# an FRE starting at offset 2, the function's size.
	.text
	.globl	after_ret
	.type	after_ret, @function
after_ret:
	.cfi_startproc
	br	%r14
	.cfi_def_cfa_offset 16
	.cfi_endproc
	.size	after_ret, .-after_ret
