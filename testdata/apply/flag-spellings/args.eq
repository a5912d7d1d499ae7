apply -o=name -f=conf/a.yaml
