# lit configuration for tidal's pass, rewrite and replay tests.
#
# Substitutions:
#   %tidal      the tidal tool built in this tree
#   %inputs     test/Inputs (small stub CUDA headers for fast parsing)
#   %stubflags  clang flags that parse against the stub header instead of
#               the real toolkit (most pass tests; the samples and
#               end-to-end tests use the real headers)
#   %src        the source root (samples live at %src/samples)
#   %nvcc       nvcc, for "rewritten output compiles" tests
#   %tidal_lib  the built runtime library (CMake target `tidal`), for link
#               tests of rewritten programs
# Features:
#   nvcc        the CUDA compiler exists (always in CI)
#   cuda-gpu    a GPU answered a probe (never in CI; see docs/limitations.md)
import os
import shutil
import subprocess

import lit.formats

config.name = "tidal"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".cu", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "runtime", "samples", "install", "pass-unit"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tidal_obj_root, "test")

config.environment["PATH"] = os.pathsep.join(
    [config.tidal_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])
# Keep the runtime quiet and on the CPU unless a test says otherwise.
config.environment["TIDAL_DEVICE"] = "sim"

inputs = os.path.join(config.test_source_root, "Inputs")
config.substitutions.append(("%tidal", os.path.join(config.tidal_tools_dir, "tidal")))
# %tidal_lib goes first: lit substitutes in order and "%tidal" is its prefix.
_rt_dir = os.path.join(config.tidal_obj_root, "runtime")
_rt_lib = next((os.path.join(_rt_dir, n) for n in ("libtidal.so", "libtidal.a")
                if os.path.exists(os.path.join(_rt_dir, n))), os.path.join(_rt_dir, "libtidal.a"))
config.substitutions.insert(0, ("%tidal_lib", _rt_lib))
# its folder (TIDAL_LIB_DIR for tidal-nvcc); first, as "%tidal_lib" is its prefix
config.substitutions.insert(0, ("%tidal_libdir", _rt_dir))
config.substitutions.append(("%inputs", inputs))
# %stubflags: no toolkit headers (-nocudainc: clang's CUDA wrapper is not
# included, so the compat header's guarded declarations stay off), the stubs
# in Inputs/ found for <cuda_runtime.h>, <cublas_v2.h>, <cudnn.h>, <nccl.h>,
# <curand_kernel.h>, and cuda.h force-included so a test needs no #include.
# The real-header path is covered by tests that omit %stubflags.
config.substitutions.append(("%stubflags", "-nocudainc -nocudalib -I" + inputs + " -include cuda.h"))
config.substitutions.append(("%src", config.tidal_src_root))
config.substitutions.append(("%nvcc", config.nvcc))
config.substitutions.append(("%cuda_archs", config.cuda_archs))

# --param no_nvcc=1 (the sanitizer job): libtidal built with ASan does not
# link into nvcc's programs, so the tests that build them are skipped.
# asan: the tool is built with AddressSanitizer (TIDAL_SANITIZE), which
# reserves terabytes of address space, so a test that bounds memory with
# `ulimit -v` cannot run there.
try:
    with open(os.path.join(config.tidal_tools_dir, "tidal"), "rb") as _f:
        if b"__asan_init" in _f.read():
            config.available_features.add("asan")
except OSError:
    pass

if config.nvcc and os.path.exists(config.nvcc) and not lit_config.params.get("no_nvcc"):
    config.available_features.add("nvcc")

def _gpu_present():
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        return subprocess.run([smi, "-L"], capture_output=True, timeout=20).returncode == 0
    except Exception:
        return False

if _gpu_present():
    config.available_features.add("cuda-gpu")
