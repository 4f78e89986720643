# Workloads (polybench/, bench/workloads/): built and run natively.
# include()d from tests/e2e/CMakeLists.txt; uses PROJECT_SOURCE_DIR.
# Each test takes a few seconds (well under the 60 s timeout).
set(CBANA_WORKLOADS_DIR ${CMAKE_CURRENT_BINARY_DIR}/workloads)

add_test(NAME workloads_polybench_mini
         COMMAND ${PROJECT_SOURCE_DIR}/tests/e2e/workloads_polybench.sh
                 ${PROJECT_SOURCE_DIR} ${CBANA_WORKLOADS_DIR}/polybench)
add_test(NAME workloads_paper
         COMMAND ${PROJECT_SOURCE_DIR}/tests/e2e/workloads_paper.sh
                 ${PROJECT_SOURCE_DIR} ${CBANA_WORKLOADS_DIR}/paper)
set_tests_properties(workloads_polybench_mini workloads_paper
                     PROPERTIES TIMEOUT 900 LABELS workloads)
