# cgref, the cachegrind reference of the end-to-end tests (cgref.py), and
# its tests. Meant to be include()d from tests/e2e/CMakeLists.txt.
#   cgref_unit    cgref's own logic (input lines, parsing, the gap rule)
#   cgref_corpus  every corpus program and input under cachegrind with two
#                 geometries: sanity of the numbers, and stride_global
#                 against a first-principles count; the runs are
#                 analyze_corpus's (one folder, made by whichever runs first)
find_package(Python3 COMPONENTS Interpreter)
set(CBANA_CORPUS_DIR "${PROJECT_SOURCE_DIR}/../shared/corpus"
    CACHE PATH "The acceptance corpus (programs + .inputs files)")
# The sanitizer build does not run cgref's own checks again: they test
# cachegrind and cgref, not cbana.
if(Python3_Interpreter_FOUND AND NOT CBANA_SANITIZE)
  add_test(NAME cgref_unit
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/test_cgref.py)
  if(EXISTS "${CBANA_CORPUS_DIR}")
    add_test(NAME cgref_corpus
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/cgref.py
                     selftest --corpus ${CBANA_CORPUS_DIR} --jobs 2
                     --cache-dir /tmp/cbana-e2e/corpus)
    set_tests_properties(cgref_corpus PROPERTIES TIMEOUT 1200 PROCESSORS 2
                         RESOURCE_LOCK cbana-e2e-corpus)
  else()
    message(STATUS "cgref: no corpus at ${CBANA_CORPUS_DIR}; "
                   "cgref_corpus not registered")
  endif()
endif()
