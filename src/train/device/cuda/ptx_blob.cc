// The kernels' PTX (kernels.cu, compiled by clang at build time into
// SG_CUDA_PTX_FILE), embedded in the plugin as one NUL-terminated string:
// cuModuleLoadDataEx takes PTX as text.
#ifndef SG_CUDA_PTX_FILE
#error "SG_CUDA_PTX_FILE names the PTX file to embed"
#endif

__asm__(
    ".section .rodata\n"
    ".global sg_cuda_kernels_ptx\n"
    ".hidden sg_cuda_kernels_ptx\n"
    ".type sg_cuda_kernels_ptx, @object\n"
    ".balign 16\n"
    "sg_cuda_kernels_ptx:\n"
    ".incbin \"" SG_CUDA_PTX_FILE
    "\"\n"
    ".byte 0\n"
    ".size sg_cuda_kernels_ptx, . - sg_cuda_kernels_ptx\n"
    ".previous\n");
