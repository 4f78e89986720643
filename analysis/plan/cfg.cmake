# Control flow on the compact IR (dominators, loops, induction variables):
# the static library cb_cfg, included from analysis/CMakeLists.txt.
add_library(cb_cfg STATIC ${CMAKE_CURRENT_LIST_DIR}/cfg.c
                          ${CMAKE_CURRENT_LIST_DIR}/loops.c)
target_include_directories(cb_cfg PUBLIC ${PROJECT_SOURCE_DIR}/include)
