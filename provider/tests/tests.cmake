# Tests of the provider module (included from provider/CMakeLists.txt; run by
# `make test`). See docs/provider.md for what each one checks.
set(FBP_MODDIR ${CMAKE_BINARY_DIR}/ossl-modules)
set(FBP_DATA ${CMAKE_CURRENT_SOURCE_DIR}/tests/data)

# OpenSSL's own cipher test files through EVP with provider=fastblock.
add_executable(test_prov_evp_kat ${CMAKE_CURRENT_SOURCE_DIR}/tests/evp_kat.c)
target_link_libraries(test_prov_evp_kat PRIVATE OpenSSL::Crypto)
add_dependencies(test_prov_evp_kat fastblock_provider)
set(FBP_KAT_FILES ${FBP_DATA}/evpciph_des.txt ${FBP_DATA}/evpciph_des3_common.txt
    ${FBP_DATA}/evpciph_aes_common.txt ${FBP_DATA}/evpciph_aes_cts.txt ${FBP_DATA}/fastblock_extra.txt)
add_test(NAME provider_evp_kat COMMAND test_prov_evp_kat ${FBP_MODDIR} ${FBP_KAT_FILES})
add_test(NAME provider_evp_kat_ct COMMAND test_prov_evp_kat ${FBP_MODDIR} --ct ${FBP_KAT_FILES})

# Differential: every cipher through the provider against OpenSSL's default
# and legacy providers (or the library's one-shot call where OpenSSL lacks
# the cipher), random splits, padding, in place, copies, re-init; bad input.
add_executable(test_prov_evp_diff ${CMAKE_CURRENT_SOURCE_DIR}/tests/evp_diff.c)
target_link_libraries(test_prov_evp_diff PRIVATE fastblock_static OpenSSL::Crypto)
add_dependencies(test_prov_evp_diff fastblock_provider)
# ~2 s; FB_QUICK=1 (the sanitizer run) makes it 5x smaller
add_test(NAME provider_evp_diff COMMAND test_prov_evp_diff ${FBP_MODDIR})
set_tests_properties(provider_evp_diff PROPERTIES TIMEOUT 300)

# openssl enc with and without the provider, openssl list, the example config.
find_program(FBP_OPENSSL_BIN openssl)
find_program(FBP_BASH bash)
# (not with FB_SANITIZE: an ASan module cannot load into the system openssl)
if(FBP_OPENSSL_BIN AND FBP_BASH AND NOT FB_SANITIZE)
  add_test(NAME provider_openssl_cli COMMAND ${FBP_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_enc.sh
           ${FBP_OPENSSL_BIN} ${FBP_MODDIR} ${CMAKE_CURRENT_SOURCE_DIR}/fastblock-openssl.cnf)
  set_tests_properties(provider_openssl_cli PROPERTIES TIMEOUT 300)
endif()

# The library's own known-answer files (tests/vectors) through EVP: the
# known answers for RC6, MARS, Twofish and Serpent, which OpenSSL lacks.
add_executable(test_prov_evp_lib_kat ${CMAKE_CURRENT_SOURCE_DIR}/tests/evp_lib_kat.c
               ${CMAKE_SOURCE_DIR}/tests/kat_file.c)
target_include_directories(test_prov_evp_lib_kat PRIVATE ${CMAKE_SOURCE_DIR}/tests)
target_link_libraries(test_prov_evp_lib_kat PRIVATE OpenSSL::Crypto)
add_dependencies(test_prov_evp_lib_kat fastblock_provider)
set(FBP_LIB_VECTORS)
foreach(f des tdes modes-tdes aes modes-aes rc6 mars twofish serpent)
  list(APPEND FBP_LIB_VECTORS ${CMAKE_SOURCE_DIR}/tests/vectors/${f}.txt)
endforeach()
add_test(NAME provider_evp_lib_kat COMMAND test_prov_evp_lib_kat ${FBP_MODDIR} ${FBP_LIB_VECTORS})
