# Workloads (polybench/, bench/workloads/): built and run natively.
# include()d from tests/e2e/CMakeLists.txt; uses PROJECT_SOURCE_DIR.
# workloads_polybench_mini needs about 13 s of CPU (60 small compiles, 90
# runs, the Python reference), workloads_paper about 3 s; on an idle 2-core
# machine both finish in about 10 s. The timeout leaves room for a loaded
# machine (38 s measured at a load average of 15).
set(CBANA_WORKLOADS_DIR ${CMAKE_CURRENT_BINARY_DIR}/workloads)

add_test(NAME workloads_polybench_mini
         COMMAND ${PROJECT_SOURCE_DIR}/tests/e2e/workloads_polybench.sh
                 ${PROJECT_SOURCE_DIR} ${CBANA_WORKLOADS_DIR}/polybench)
add_test(NAME workloads_paper
         COMMAND ${PROJECT_SOURCE_DIR}/tests/e2e/workloads_paper.sh
                 ${PROJECT_SOURCE_DIR} ${CBANA_WORKLOADS_DIR}/paper)
set_tests_properties(workloads_polybench_mini workloads_paper
                     PROPERTIES TIMEOUT 120 LABELS workloads)
