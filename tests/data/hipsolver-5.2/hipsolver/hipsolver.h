// A stand-in for HIP 5.2's hipsolver/hipsolver.h, which Debian does not package: the declarations
// tests/test_convert_compiles.py compiles against, as hipSOLVER's rocm-5.2.3 internal/hipsolver-types.h spells them.
#pragma once
typedef enum { HIPSOLVER_FILL_MODE_UPPER = 121, HIPSOLVER_FILL_MODE_LOWER = 122 } hipsolverFillMode_t;
