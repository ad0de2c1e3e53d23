# A function with an empty body: GNU as (2.40, 2.44, 2.47) --gsframe writes an FDE of
# size 0 with one FRE at offset 0.
	.text
	.globl	edge_empty
	.type	edge_empty, @function
edge_empty:
	.cfi_startproc
	.cfi_endproc
	.size	edge_empty, .-edge_empty
