#!/bin/sh
# A build script: nvcc flags and tools.
nvcc -O3 --use_fast_math -lineinfo -o app app.cu  # expect: PK407 PK408 PK408 ok: PK403
nvcc -maxrregcount=32 -I/usr/local/cuda/include -o app4 app4.cu  # expect: PK407 PK403 PK404
$CUDA_HOME/bin/nvcc -o app5 app5.cu  # expect: PK407 ok: PK404
nvcc -Xptxas -v -o app2 app2.cu  # expect: PK407 PK403
hipcc -O3 -o app3 app3.cu  # ok: PK403 PK407
echo "$# files: ${CC:-nvcc}"  # expect: PK407
CUDA_VISIBLE_DEVICES=0 ./app  # expect: PK412
nsys profile ./app  # expect: PK411
