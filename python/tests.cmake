# The Python package's tests as one CTest test (label python): a fresh
# virtual environment, `pip install ./`, pytest (python/run_tests.sh).
# Included from tests/CMakeLists.txt; needs python3 with venv and the
# package index (scripts/install-deps.sh installs python3-venv, python3-dev).
find_program(FB_BASH bash)
# Not in the sanitizer configuration: the extension is built by its own
# (unsanitized) CMake run, so that pass would only repeat `make test`'s.
if(Python3_FOUND AND FB_BASH AND NOT SKBUILD AND NOT FB_SANITIZE)
  add_test(NAME python COMMAND ${FB_BASH} ${CMAKE_SOURCE_DIR}/python/run_tests.sh ${CMAKE_BINARY_DIR})
  set_tests_properties(python PROPERTIES LABELS python TIMEOUT 900
    ENVIRONMENT "PYTHON=${Python3_EXECUTABLE};FASTBLOCK_CLI=$<TARGET_FILE:fastblock_cli>")
endif()
