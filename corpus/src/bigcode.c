/* Functions with more than 256 and more than 65536 bytes of code: FRE start addresses that
   need 2 and 4 bytes.  Each function saves registers (prologue) and restores them at its
   end (epilogue), so there are FREs near the end.  */
#include "common.h"

#define R1(i) acc = acc * 31 + ext_v[(i) & 7];
#define R10(i) R1(i) R1(i + 1) R1(i + 2) R1(i + 3) R1(i + 4) R1(i + 5) R1(i + 6) R1(i + 7) R1(i + 8) R1(i + 9)
#define R100(i) R10(i) R10(i + 1) R10(i + 2) R10(i + 3) R10(i + 4) R10(i + 5) R10(i + 6) R10(i + 7) R10(i + 8) R10(i + 9)
#define R1000(i) R100(i) R100(i + 1) R100(i + 2) R100(i + 3) R100(i + 4) R100(i + 5) R100(i + 6) R100(i + 7) R100(i + 8) R100(i + 9)

int code_2k(int x)
{
  int acc = ext_sink(x);
  R100(0)
  return ext_sink(acc) + acc;
}

int code_70k(int x)
{
  int acc = ext_sink(x);
  R1000(0) R1000(1) R1000(2)
  if (acc == x)
    return ext_sink(acc) + acc; /* an epilogue in the middle of the function */
  R1000(3) R1000(4) R1000(5)
  return ext_sink(acc) + acc;
}
