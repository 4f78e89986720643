# cbana dump against clang, nm and the sources, on the shared corpus.
set(CBANA_CORPUS "${PROJECT_SOURCE_DIR}/../shared/corpus"
    CACHE PATH "The acceptance corpus of C programs")
find_program(CB_PYTHON3 python3)
if(CB_PYTHON3 AND EXISTS "${CBANA_CORPUS}")
  add_test(NAME dump_corpus
           COMMAND ${CB_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/dump_corpus.py
                   ${CBANA_EXE} ${CBANA_CORPUS} ${PROJECT_SOURCE_DIR}/polybench)
endif()
