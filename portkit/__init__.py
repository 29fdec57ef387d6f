"""portkit: find what a CUDA code base needs to run on AMD ROCm/HIP, and port it."""
__version__ = "0.1.0"
# The project's home; reports link its documentation from there (SARIF's informationUri and helpUri).
HOMEPAGE = "https://github.com/portkit/portkit"
DOCS_URL = f"{HOMEPAGE}/blob/main/docs/"
