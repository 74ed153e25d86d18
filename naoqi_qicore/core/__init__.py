"""core layer of naoqi_qicore."""
