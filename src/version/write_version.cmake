# SPDX-License-Identifier: Apache-2.0
# Runs at every build (not only at configure time) so a new commit changes
# what --version prints; configure_file leaves the header untouched when the
# text is the same, so an unchanged commit rebuilds nothing.
set(NR_GIT_COMMIT "")
if(NOT DEFINED ENV{NR_NO_GIT_VERSION})
  execute_process(
    COMMAND git -C "${SOURCE_DIR}" describe --always --dirty --abbrev=12 --match=NeVeR
    OUTPUT_VARIABLE NR_GIT_COMMIT
    OUTPUT_STRIP_TRAILING_WHITESPACE
    ERROR_QUIET
    RESULT_VARIABLE git_status)
  if(NOT git_status EQUAL 0)
    set(NR_GIT_COMMIT "")
  endif()
endif()
configure_file("${INPUT}" "${OUTPUT}" @ONLY)
