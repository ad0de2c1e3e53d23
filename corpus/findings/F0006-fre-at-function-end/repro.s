# A CFI directive after a function's last instruction: GNU as 2.40, 2.44, 2.47 --gsframe
# and llvm-mc 23 --gsframe write an FRE starting at offset 1, the function's size.
	.text
	.globl	after_ret
	.type	after_ret, @function
after_ret:
	.cfi_startproc
	ret
	.cfi_def_cfa_offset 16
	.cfi_endproc
	.size	after_ret, .-after_ret
