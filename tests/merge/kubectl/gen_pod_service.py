"""gen_pod_service.py SEED - writes o.json (last applied), m.json (new config) and
live.json (the live object, changed on the server side) for Pods (containers, initContainers, volumes, tolerations, imagePullSecrets) and Services (ports by port, int-or-string targetPort):
random, reproducible from SEED."""
import json, random, sys
seed=int(sys.argv[1]); random.seed(seed)
def pick(prefix, k, n=10): return [f"{prefix}{i}" for i in random.sample(range(n), k)]
def env():
    out=[]
    for e in pick("E", random.randint(0,5)):
        if random.random()<0.2: out.append({"name":e,"valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}})
        else: out.append({"name":e,"value":str(random.randint(0,3))})
    return out
def container(n):
    c={"name":n,"image":random.choice(["a:1","b:2"])}
    if random.random()<0.6: c["env"]=env()
    if random.random()<0.5: c["ports"]=[{"containerPort":p,"name":"p%d"%p} for p in random.sample([80,81,443,8080],random.randint(0,3))]
    if random.random()<0.3: c["resources"]={"limits":{"cpu":random.choice(["1","500m"])},"requests":{"memory":"1Gi"}}
    if random.random()<0.3: c["volumeMounts"]=[{"name":v,"mountPath":"/m/"+v} for v in pick("v",random.randint(0,3),5)]
    if random.random()<0.2: c["command"]=["sh","-c",random.choice(["a","b"])]
    return c
def volume(n):
    r=random.random()
    if r<0.3: return {"name":n,"emptyDir":{}}
    if r<0.6: return {"name":n,"configMap":{"name":"cm"+n}}
    return {"name":n,"secret":{"secretName":"s"+n}}
def pod():
    spec={"containers":[container(n) for n in pick("c",random.randint(1,4))]}
    if random.random()<0.4: spec["initContainers"]=[container(n) for n in pick("i",random.randint(0,2))]
    if random.random()<0.5: spec["volumes"]=[volume(v) for v in pick("v",random.randint(0,4),5)]
    if random.random()<0.3: spec["tolerations"]=[{"key":k,"operator":"Exists"} for k in pick("t",random.randint(0,3))]
    if random.random()<0.3: spec["imagePullSecrets"]=[{"name":n} for n in pick("ps",random.randint(0,3))]
    if random.random()<0.3: spec["nodeSelector"]={k:"v" for k in pick("n",random.randint(0,3))}
    return {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"b"}},"spec":spec}
def service():
    ports=[{"port":p,"name":"n%d"%p,"targetPort":random.choice([p,"http","t%d"%p])} for p in random.sample([80,443,8080,9090],random.randint(1,4))]
    s={"apiVersion":"v1","kind":"Service","metadata":{"name":"s"},"spec":{"ports":ports,"selector":{"app":"x"}}}
    if random.random()<0.3: s["spec"]["type"]=random.choice(["ClusterIP","NodePort"])
    return s
def mutate_list(l, key, newf):
    l=[json.loads(json.dumps(x)) for x in l]
    if random.random()<0.4: random.shuffle(l)
    if l and random.random()<0.4: l.pop(random.randrange(len(l)))
    if random.random()<0.4: l.insert(random.randint(0,len(l)), newf())
    seen=set(); return [x for x in l if not (x[key] in seen or seen.add(x[key]))]
def mutate(d):
    d=json.loads(json.dumps(d))
    if d["kind"]=="Service":
        d["spec"]["ports"]=mutate_list(d["spec"]["ports"],"port",lambda: {"port":random.choice([80,7070,443]),"targetPort":random.choice([1,"z"])})
        for p in d["spec"]["ports"]:
            if random.random()<0.3: p["targetPort"]=random.choice([8081,"web"])
        if random.random()<0.2: d["spec"]["selector"]={"app":"y"}
        return d
    sp=d["spec"]
    sp["containers"]=mutate_list(sp["containers"],"name",lambda: container("c%d"%random.randint(0,9)))
    for c in sp["containers"]:
        if "env" in c and random.random()<0.5: c["env"]=mutate_list(c["env"],"name",lambda: {"name":"E%d"%random.randint(0,9),"value":"n"})
        if "ports" in c and random.random()<0.4: c["ports"]=mutate_list(c["ports"],"containerPort",lambda: {"containerPort":random.choice([80,9000])})
        if random.random()<0.3: c["image"]="z:9"
        if "resources" in c and random.random()<0.3: c["resources"]={"limits":{"cpu":"2"}}
    for k,key,f in (("volumes","name",lambda: volume("v%d"%random.randint(0,4))),("imagePullSecrets","name",lambda: {"name":"ps%d"%random.randint(0,9)}),("initContainers","name",lambda: container("i%d"%random.randint(0,9)))):
        if k in sp and random.random()<0.5: sp[k]=mutate_list(sp[k],key,f)
    for v in sp.get("volumes",[]):
        if random.random()<0.2:
            for t in ("emptyDir","configMap","secret"): v.pop(t,None)
            v["emptyDir"]={}
    if "tolerations" in sp and random.random()<0.4: sp["tolerations"]=sp["tolerations"][::-1]
    if random.random()<0.2: sp["nodeSelector"]={"z":"1"}
    return d
o = pod() if seed%2 else service()
m=mutate(o); live=mutate(o)
if live["kind"]=="Pod":
    live["spec"]["containers"].append({"name":"injected","image":"mesh"}); live["status"]={"phase":"Running"}
    for c in live["spec"]["containers"]: c.setdefault("terminationMessagePath","/dev/termination-log")
else:
    live["spec"]["clusterIP"]="10.0.0.1"
    for p in live["spec"]["ports"]: p.setdefault("protocol","TCP")
json.dump(o,open("o.json","w")); json.dump(m,open("m.json","w")); json.dump(live,open("live.json","w"))
