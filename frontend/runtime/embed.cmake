# Writes the bitcode file IN as a C array named NAME into OUT, so that
# cbana-frontend.so carries the runtime's bitcode (prep.c links it).
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" n)
math(EXPR bytes "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "((0x..,){16})" "\\1\n" body "${body}")
file(WRITE ${OUT} "/* generated from ${IN} by embed.cmake */\n#include <stddef.h>\n"
     "const unsigned char ${NAME}[] = {\n${body}\n};\n"
     "const size_t ${NAME}_size = ${bytes};\n")
