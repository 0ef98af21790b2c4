# Differential tests (OpenSSL, Crypto++), error paths and the CLI.
# FB_QUICK=1 in the environment (the sanitizer run) selects the quick variants.
if(OpenSSL_FOUND)
  add_executable(test_diff_openssl test_diff_openssl.c)
  target_link_libraries(test_diff_openssl PRIVATE fastblock_static OpenSSL::Crypto)
  add_test(NAME diff_openssl COMMAND test_diff_openssl)
  set_tests_properties(diff_openssl PROPERTIES LABELS slow TIMEOUT 600)
  add_test(NAME diff_openssl_quick COMMAND test_diff_openssl quick)
endif()
find_package(PkgConfig)
if(PkgConfig_FOUND AND CMAKE_CXX_COMPILER)
  pkg_check_modules(CRYPTOPP IMPORTED_TARGET libcrypto++)
endif()
if(CRYPTOPP_FOUND)
  add_executable(test_diff_cryptopp test_diff_cryptopp.cpp)
  set_target_properties(test_diff_cryptopp PROPERTIES CXX_STANDARD 17)
  target_link_libraries(test_diff_cryptopp PRIVATE fastblock_static PkgConfig::CRYPTOPP)
  add_test(NAME diff_cryptopp COMMAND test_diff_cryptopp)
  set_tests_properties(diff_cryptopp PROPERTIES LABELS slow TIMEOUT 600)
  add_test(NAME diff_cryptopp_quick COMMAND test_diff_cryptopp quick)
endif()
add_executable(test_errors test_errors.c)
target_include_directories(test_errors PRIVATE ${CMAKE_SOURCE_DIR}/src) # api_private.h
target_link_libraries(test_errors PRIVATE fastblock_static)
add_test(NAME errors COMMAND test_errors)
add_test(NAME footprint COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_footprint.sh $<TARGET_FILE:fastblock_cli>
  $<TARGET_FILE:fastblock_static> ${CMAKE_NM})
find_program(BASH bash)
find_program(OPENSSL_BIN openssl)
if(BASH AND OPENSSL_BIN)
  if(TARGET test_diff_cryptopp)
    add_test(NAME cli COMMAND ${BASH} ${CMAKE_CURRENT_SOURCE_DIR}/test_cli.sh $<TARGET_FILE:fastblock_cli> $<TARGET_FILE:test_diff_cryptopp>)
  else()
    add_test(NAME cli COMMAND ${BASH} ${CMAKE_CURRENT_SOURCE_DIR}/test_cli.sh $<TARGET_FILE:fastblock_cli>)
  endif()
  set_tests_properties(cli PROPERTIES TIMEOUT 600)
  # --threads against one thread and openssl enc; the progress line under a
  # pseudo-terminal (python3's pty module).
  if(Python3_FOUND)
    add_test(NAME cli_threads COMMAND ${BASH} ${CMAKE_CURRENT_SOURCE_DIR}/test_cli_threads.sh $<TARGET_FILE:fastblock_cli>)
    set_tests_properties(cli_threads PROPERTIES TIMEOUT 600)
  endif()
endif()

# Multi-stream DES/3DES against single-stream results.
add_executable(test_multi test_multi.c)
target_link_libraries(test_multi PRIVATE fastblock_static)
add_test(NAME multi_stream COMMAND test_multi)

# Constant time, proven under valgrind memcheck: key and data marked
# undefined; any secret-dependent branch or address fails. The negative
# check runs des/table (table lookups) and must fail.
find_program(VALGRIND valgrind)
find_path(VALGRIND_INCLUDE valgrind/memcheck.h)
if(VALGRIND AND VALGRIND_INCLUDE AND NOT FB_SANITIZE)
  add_executable(test_ct_valgrind test_ct_valgrind.c ct_model_vaes.c ct_model_avx512.c ct_model_vaes512.c
                                 ct_model_twofish512.c ct_model_mars512.c ct_model_des_avx2.c)
  # The Twofish model inlines its C stand-ins for vpermt2b and gf2p8affineqb
  # into a kernel with per-key unrolled paths: GCC at -O1 or above runs for
  # more than ten minutes and 1.4 GB on that one file, -O0 takes seconds.
  # The MARS model likewise (80 modelled S-box lookups per group, 4 groups).
  set_source_files_properties(ct_model_twofish512.c ct_model_mars512.c PROPERTIES COMPILE_OPTIONS "-O0")
  # The other models and the driver (which includes the AVX-512 DES kernels)
  # take GCC 100-135 s a file at -O3, most of a two-core Release build; at
  # -O1 they take 11-18 s. Nothing here is timed, and the branches and
  # addresses memcheck looks for are the kernels' source's, at any level.
  set_source_files_properties(test_ct_valgrind.c ct_model_vaes.c ct_model_avx512.c ct_model_vaes512.c
                              ct_model_des_avx2.c PROPERTIES COMPILE_OPTIONS "-O1")
  target_link_libraries(test_ct_valgrind PRIVATE fastblock_static)
  # Without --track-origins (a quarter of the run's time): a report names the
  # kernel and the instruction; to see where the secret came from, run
  # valgrind --track-origins=yes ./test_ct_valgrind by hand.
  add_test(NAME ct_valgrind COMMAND ${VALGRIND} -q --error-exitcode=1 $<TARGET_FILE:test_ct_valgrind>)
  add_test(NAME ct_valgrind_detects_table COMMAND ${VALGRIND} -q --error-exitcode=1 $<TARGET_FILE:test_ct_valgrind> des/table)
  set_tests_properties(ct_valgrind PROPERTIES TIMEOUT 900 SKIP_RETURN_CODE 77)
  set_tests_properties(ct_valgrind_detects_table PROPERTIES WILL_FAIL TRUE TIMEOUT 900)
  # The Twofish model's own negative check: the same model compiled for
  # twofish/table-avx512 (tables built by the modelled key setup) must be reported.
  add_test(NAME ct_valgrind_detects_twofish_table COMMAND ${VALGRIND} -q $<TARGET_FILE:test_ct_valgrind> twofish/table-avx512)
  set_tests_properties(ct_valgrind_detects_twofish_table PROPERTIES TIMEOUT 600
                       PASS_REGULAR_EXPRESSION "twofish/table-avx512 +NOT constant-time")
  # MARS's: mars/avx512 (gathers at secret indices) compiled against the
  # same model as mars/permute-avx512 must be reported.
  add_test(NAME ct_valgrind_detects_mars_gather COMMAND ${VALGRIND} -q $<TARGET_FILE:test_ct_valgrind> mars/avx512)
  set_tests_properties(ct_valgrind_detects_mars_gather PROPERTIES TIMEOUT 600
                       PASS_REGULAR_EXPRESSION "mars/avx512 +NOT constant-time")
  # The other families' constant-time claims, and for each a kernel with a
  # secret branch added that the check must catch. Twofish's and MARS's
  # entries skip where no constant-time kernel of theirs runs natively.
  foreach(fam aes rc6 serpent twofish mars)
    add_test(NAME ct_valgrind_${fam} COMMAND ${VALGRIND} -q --error-exitcode=1 $<TARGET_FILE:test_ct_valgrind> family:${fam})
    set_tests_properties(ct_valgrind_${fam} PROPERTIES TIMEOUT 600 SKIP_RETURN_CODE 77)
  endforeach()
  foreach(k aes/ct64 rc6/portable serpent/bitslice des/bs-avx2)
    string(REPLACE "/" "_" kn ${k})
    add_test(NAME ct_valgrind_detects_leak_${kn} COMMAND ${VALGRIND} -q --error-exitcode=1 $<TARGET_FILE:test_ct_valgrind> leaky:${k})
    # Passes only on the check's own verdict, not on any failure.
    set_tests_properties(ct_valgrind_detects_leak_${kn} PROPERTIES TIMEOUT 600
                         PASS_REGULAR_EXPRESSION "with a secret branch +NOT constant-time")
  endforeach()
  # The other leaks the check must see: a secret-indexed load (in decrypt)
  # and a secret branch in setkey, on AES-NI, AVX2 and modelled VAES kernels.
  foreach(k load:aes/aesni load:serpent/avx2 setkey:rc6/avx2 setkey:aes/ct64 load:aes/vaes-avx2
          load:des/rotate setkey:des/rotate branch:des/rotate
          branch:aes/vaes-avx2 load:rc6/avx512 setkey:serpent/avx512 load:aes/vaes-avx512)
    string(REGEX REPLACE "[/:]" "_" kn ${k})
    string(REGEX REPLACE ":.*" "" how ${k})
    string(REGEX REPLACE ".*:" "" kern ${k})
    set(arg leaky-${how}:${kern})
    set(re "with a secret load +NOT constant-time")
    if(how STREQUAL "setkey")
      set(re "with a secret branch in setkey +NOT constant-time")
    elseif(how STREQUAL "branch")
      set(arg leaky:${kern})
      set(re "with a secret branch +NOT constant-time")
    endif()
    add_test(NAME ct_valgrind_detects_${kn} COMMAND ${VALGRIND} -q --error-exitcode=1 $<TARGET_FILE:test_ct_valgrind> ${arg})
    set_tests_properties(ct_valgrind_detects_${kn} PROPERTIES TIMEOUT 600 PASS_REGULAR_EXPRESSION "${re}")
  endforeach()
endif()

# make install / pkg-config / find_package / static consumers, exported
# symbols, man page options, make uninstall; and a build from make dist's
# tarball. Labelled slow: they install the Release build (the sanitizer
# pass builds no consumer against its instrumented library).
if(BASH)
  add_test(NAME install COMMAND ${BASH} ${CMAKE_CURRENT_SOURCE_DIR}/test_install.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
  add_test(NAME dist_builds COMMAND ${BASH} ${CMAKE_CURRENT_SOURCE_DIR}/test_install.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR} dist)
  set_tests_properties(install dist_builds PROPERTIES LABELS slow TIMEOUT 900)
  set_tests_properties(install PROPERTIES RUN_SERIAL TRUE)
endif()

# MACs and key tools against published vectors and OpenSSL.
if(OpenSSL_FOUND)
  add_executable(test_mac test_mac.c)
  target_link_libraries(test_mac PRIVATE fastblock_static OpenSSL::Crypto)
  add_test(NAME mac COMMAND test_mac ${V}/cmac ${V}/mac/retail_cbcmac.txt)
endif()

# The implementation choice for every machine class, cipher, mode and direction.
add_executable(test_dispatch test_dispatch.c)
target_link_libraries(test_dispatch PRIVATE fastblock_static)
add_test(NAME dispatch COMMAND test_dispatch)
set_tests_properties(dispatch PROPERTIES SKIP_RETURN_CODE 77)

# Threaded parallel modes against one thread.
add_executable(test_threads test_threads.c)
target_link_libraries(test_threads PRIVATE fastblock_static)
add_test(NAME threads COMMAND test_threads)
