"""gen_deploy.py SEED - writes o.json (last applied), m.json (new config) and
live.json (the live object, changed on the server side) for Deployments (containers, env, ports, volumes, finalizers, strategy):
random, reproducible from SEED."""
import json, random, sys
seed=int(sys.argv[1]); random.seed(seed)
def names(prefix, k): return [f"{prefix}{i}" for i in random.sample(range(12), k)]
def container(n):
    c={"name":n,"image":random.choice(["a:1","b:2","c:3"])}
    if random.random()<0.7:
        c["env"]=[{"name":e,"value":str(random.randint(0,3))} for e in names("E",random.randint(0,6))]
    if random.random()<0.6:
        c["ports"]=[{"containerPort":p,"protocol":"TCP"} for p in random.sample([80,81,82,443,8080,9090],random.randint(0,4))]
    if random.random()<0.3:
        c["args"]=[random.choice("xyz") for _ in range(random.randint(0,3))]
    return c
def deploy():
    d={"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","labels":{l:"v" for l in names("l",random.randint(0,4))}},
       "spec":{"replicas":random.randint(1,3),"selector":{"matchLabels":{"app":"web"}},
               "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[container(n) for n in names("c",random.randint(1,5))]}}}}
    if random.random()<0.5:
        d["spec"]["template"]["spec"]["volumes"]=[{"name":v,"emptyDir":{}} for v in names("v",random.randint(0,4))]
    if random.random()<0.4:
        d["metadata"]["finalizers"]=names("f",random.randint(0,4))
    if random.random()<0.4:
        d["spec"]["strategy"]=random.choice([{"type":"Recreate"},{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1}}])
    return d
def mutate(d):
    d=json.loads(json.dumps(d))
    cs=d["spec"]["template"]["spec"]["containers"]
    random.shuffle(cs) if random.random()<0.5 else None
    for c in cs:
        if random.random()<0.4: c["image"]="z:9"
        if "env" in c and random.random()<0.5:
            random.shuffle(c["env"]); 
            if c["env"] and random.random()<0.5: c["env"].pop()
            if random.random()<0.5: c["env"].append({"name":"NEW%d"%random.randint(0,3),"value":"n"})
            seen=set(); c["env"]=[e for e in c["env"] if not (e["name"] in seen or seen.add(e["name"]))]
        if "ports" in c and random.random()<0.4:
            random.shuffle(c["ports"])
    if cs and random.random()<0.4: cs.pop(random.randrange(len(cs)))
    if random.random()<0.4: cs.insert(random.randint(0,len(cs)), container("new%d"%random.randint(0,2)))
    seen=set(); d["spec"]["template"]["spec"]["containers"]=[c for c in cs if not (c["name"] in seen or seen.add(c["name"]))]
    if "finalizers" in d["metadata"] and random.random()<0.5:
        f=d["metadata"]["finalizers"]; random.shuffle(f)
        if f: f.pop()
        f.append("fx")
    if "volumes" in d["spec"]["template"]["spec"] and random.random()<0.5:
        v=d["spec"]["template"]["spec"]["volumes"]; random.shuffle(v)
        if v and random.random()<0.5: v.pop()
    if random.random()<0.3: d["spec"]["strategy"]={"type":"Recreate"}
    return d
o=deploy(); m=mutate(o); live=mutate(o)
# live = last + server changes (server-only list items)
for c in live["spec"]["template"]["spec"]["containers"]:
    if random.random()<0.3: c.setdefault("env",[]).append({"name":"SRV","value":"s"})
if random.random()<0.5: live["spec"]["template"]["spec"]["containers"].append({"name":"injected","image":"mesh"})
live["status"]={"replicas":1}
json.dump(o,open("o.json","w")); json.dump(m,open("m.json","w")); json.dump(live,open("live.json","w"))
