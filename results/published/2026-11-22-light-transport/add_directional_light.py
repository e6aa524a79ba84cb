# Makes a .gltf copy of a scene with one directional light from the upper left front.
import json, struct, sys, math, os, shutil
src, dst = sys.argv[1], sys.argv[2]
if src.endswith('.glb'):
    data = open(src, 'rb').read()
    magic, version, length = struct.unpack_from('<III', data, 0)
    off = 12; gltf = None; binchunk = None
    while off < length:
        clen, ctype = struct.unpack_from('<II', data, off); off += 8
        chunk = data[off:off+clen]; off += clen
        if ctype == 0x4E4F534A: gltf = json.loads(chunk)
        elif ctype == 0x004E4942: binchunk = chunk
    binname = os.path.basename(dst).replace('.gltf', '.bin')
    open(os.path.join(os.path.dirname(dst), binname), 'wb').write(binchunk)
    gltf['buffers'][0]['uri'] = binname
else:
    gltf = json.load(open(src))
    d = os.path.dirname(src)
    for f in os.listdir(d):
        if not f.endswith('.gltf'): shutil.copy(os.path.join(d, f), os.path.dirname(dst))
d = [1, -1, -1]; n = math.sqrt(3); d = [x / n for x in d]
a = [0, 0, -1]
axis = [a[1]*d[2]-a[2]*d[1], a[2]*d[0]-a[0]*d[2], a[0]*d[1]-a[1]*d[0]]
c = sum(x*y for x, y in zip(a, d))
w = math.sqrt((1 + c) / 2); s = 1 / (2 * w)
q = [axis[0]*s, axis[1]*s, axis[2]*s, w]
gltf.setdefault('extensionsUsed', []).append('KHR_lights_punctual')
gltf.setdefault('extensions', {})['KHR_lights_punctual'] = {'lights': [{'type': 'directional', 'intensity': float(sys.argv[3])}]}
gltf['nodes'].append({'rotation': q, 'extensions': {'KHR_lights_punctual': {'light': 0}}})
gltf['scenes'][gltf.get('scene', 0)]['nodes'].append(len(gltf['nodes']) - 1)
json.dump(gltf, open(dst, 'w'))
