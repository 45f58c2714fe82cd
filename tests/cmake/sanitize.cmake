# AddressSanitizer and UBSan builds of the test programs (-DSLUICE_TEST_SANITIZE=ON), shared
# by the C and C++ test projects:
#   include(<this file>), then sluice_sanitize(<target>) for each test program, and
#   sluice_sanitize_leak_test(<program>) once.
# Each program gets leak_checks.c (modules stay loaded; leaks inside the Vulkan driver,
# loader and layers are suppressed by name, never Sluice's own).
option(SLUICE_TEST_SANITIZE "Build the tests with AddressSanitizer and UBSan" OFF)

if(SLUICE_TEST_SANITIZE)
  enable_language(C)
  add_library(sluice_leak_checks OBJECT "${CMAKE_CURRENT_LIST_DIR}/leak_checks.c")
  target_compile_options(sluice_leak_checks PRIVATE -Wall -Wextra -Werror -std=c11)
endif()

function(sluice_sanitize target)
  if(SLUICE_TEST_SANITIZE)
    target_compile_options(${target} PRIVATE -fsanitize=address,undefined -fno-omit-frame-pointer)
    target_link_options(${target} PRIVATE -fsanitize=address,undefined
                        -Wl,--export-dynamic-symbol=dlclose -Wl,--export-dynamic-symbol=__lsan_default_suppressions)
    target_link_libraries(${target} PRIVATE sluice_leak_checks)
  endif()
endfunction()

# A leak of Sluice's own still fails: <program> (a sanitized test program that starts the
# runtime) runs on Vulkan, so the driver's leaks are there too, with SLUICE_TEST_LEAK making
# start-up leak a block; LeakSanitizer must report that block as allocated from libsluice
# (unsymbolised, frames name their module).
function(sluice_sanitize_leak_test program)
  if(SLUICE_TEST_SANITIZE)
    set(bytes 4099)
    add_test(NAME leak_reported COMMAND ${program})
    set_tests_properties(leak_reported PROPERTIES
      ENVIRONMENT "SLUICE_BACKEND=vulkan;SLUICE_TEST_LEAK=${bytes};ASAN_OPTIONS=symbolize=0"
      PASS_REGULAR_EXPRESSION "Direct leak of ${bytes} byte\\(s\\) in 1 object\\(s\\) allocated from:\n[^\n]*\n[^\n]*/libsluice\\.so")
  endif()
endfunction()
